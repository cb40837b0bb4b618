// Target selection as a feature: forcing by name (library and CLI, flag and HRW_TARGET),
// the scoped restoring form, and proof that a forced target is what really runs.
#include <catch2/catch.hpp>

#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "cli_runner.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"
#include "hwy/targets.h"
#include "kernel_api.hpp"
#include "random_cluster.hpp"
#include "target_switch.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct EnvVar {
  EnvVar(const char* name, const char* value) : name_(name) { ::setenv(name, value, 1); }
  ~EnvVar() { ::unsetenv(name_); }
  const char* name_;
};

int lines_of(const std::string& text) {
  int n = 0;
  for (char c : text) n += c == '\n';
  return n;
}

}  // namespace

TEST_CASE("force_target(name) runs the named target: the kernels dispatch to it", "[targets]") {
  std::mt19937_64 rng(7);
  hrw::test::RandomClusterOptions o;
  o.min_nodes = 30, o.max_nodes = 60, o.weighted = true;
  const hrw::ClusterView view(hrw::test::random_cluster(rng, o));
  hrw::KeyBatch keys;
  for (int i = 0; i < 500; ++i) keys.add(hrw::test::random_bytes(rng, 0, 40));
  hrw::PlaceOptions ref_options;
  ref_options.engine = hrw::Engine::reference;
  const hrw::Placement want = hrw::place(view, keys, ref_options);
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) {
    const hrw::ScopedTarget on(lower(t.name));  // names are case-insensitive
    CHECK(hrw::forced_target() == t.bits);
    const hrw::Placement got = hrw::place(view, keys, hrw::PlaceOptions{});
    // dispatched_target() is the target run_batch is dispatched to now.
    CHECK(hrw::kernels::dispatched_target() == t.bits);
    CHECK(got.nodes == want.nodes);
  }
  CHECK(hrw::forced_target() == 0);
}

TEST_CASE("hrw detects the targets Highway detects and dispatches to the best", "[targets][cpu-detection]") {
  // The kernels dispatch by hrw's own detection (kernels/cpu_targets.cc), so that libhwy.so
  // is not loaded; Highway's (hwy::SupportedTargets, linked into the tests only) is the
  // reference. A target reported that the CPU lacks would run instructions it does not
  // have. The suite runs this on the x86 host and on every qemu CPU of tools/arm-ci.sh.
  const std::int64_t highway = hwy::SupportedTargets();
  INFO("hrw: " << hrw::kernels::detect_cpu_targets() << ", Highway: " << highway);
  CHECK(hrw::kernels::detect_cpu_targets() == highway);
  CHECK(hrw::kernels::detected_target_mask() == highway);
  const std::int64_t runnable = highway & hrw::kernels::compiled_target_mask();
  REQUIRE(runnable != 0);
  const hrw::ScopedTarget automatic("auto");
  CHECK(hrw::kernels::dispatched_target() == (runnable & -runnable));  // lowest bit = best
  CHECK(hrw::active_target().bits == (runnable & -runnable));
}

TEST_CASE("ScopedTarget nests and restores what was forced before", "[targets]") {
  const auto targets = hrw::runnable_targets();
  const hrw::SimdTarget detected = hrw::active_target();
  {
    const hrw::ScopedTarget outer(targets.back().bits);
    CHECK(hrw::active_target().bits == targets.back().bits);
    {
      const hrw::ScopedTarget inner(targets.front().name);
      CHECK(hrw::active_target().bits == targets.front().bits);
    }
    CHECK(hrw::active_target().bits == targets.back().bits);
    try {
      const hrw::ScopedTarget bad("no-such-target");
      FAIL("an unknown name must throw");
    } catch (const hrw::InputError&) {
    }
    CHECK(hrw::active_target().bits == targets.back().bits);
  }
  CHECK(hrw::forced_target() == 0);
  CHECK(hrw::active_target().bits == detected.bits);
}

TEST_CASE("the forced target is hrw's own: set on one thread, seen on another", "[targets]") {
  const auto targets = hrw::runnable_targets();
  const hrw::SimdTarget last = targets.back();
  std::thread([&] { hrw::force_target(last.bits); }).join();
  CHECK(hrw::forced_target() == last.bits);
  CHECK(hrw::active_target().bits == last.bits);
  // Detection is not narrowed by forcing (Highway's test hook would report only the
  // forced target as supported).
  CHECK(hrw::runnable_targets().size() == targets.size());
  std::thread([] { hrw::force_target(std::string_view("auto")); }).join();
  CHECK(hrw::forced_target() == 0);
  CHECK(hrw::active_target().bits == targets.front().bits);
  CHECK_THROWS_AS(hrw::force_target(std::int64_t{1} << 40), std::invalid_argument);  // no such target
  if (targets.size() > 1)  // two bits are not one target
    CHECK_THROWS_AS(hrw::force_target(targets[0].bits | targets.back().bits), std::invalid_argument);
}

// HRW_TARGET is read once per process, so its precedence is checked in fresh processes: an
// explicit choice is made before the variable would be read, and a bad value is then never
// looked at (one target suffices, as under an emulator that runs only one).
TEST_CASE("an explicit --target wins over HRW_TARGET, which is then not read", "[targets][cli]") {
  const std::string first = hrw::runnable_targets().front().name, last = hrw::runnable_targets().back().name;
  auto res = hrw::test::run_hrw_with_env({"--target", last, "verify", "--pairs", "20000"}, "", {"HRW_TARGET=" + first});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, StartsWith(last + " "));
  res = hrw::test::run_hrw_with_env({"--target", last, "verify", "--pairs", "20000"}, "", {"HRW_TARGET=bogus"});
  CHECK(res.exit_code == 0);
  CHECK(res.err.empty());
  CHECK_THAT(res.out, StartsWith(last + " "));
  // Without the flag the same variable is read, and refused.
  res = hrw::test::run_hrw_with_env({"verify", "--pairs", "20000"}, "", {"HRW_TARGET=bogus"});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, StartsWith("hrw: HRW_TARGET: unknown SIMD target \"bogus\""));
}

TEST_CASE("unknown and unsupported target names are InputErrors listing the valid ones",
          "[targets]") {
  try {
    hrw::force_target(std::string_view("AVX9"));
    FAIL("AVX9 must be refused");
  } catch (const hrw::InputError& e) {
    CHECK_THAT(e.what(), Contains("unknown SIMD target \"AVX9\"") &&
                             Contains(hrw::compiled_targets().front().name));
  }
  // The name is quoted by the one rule of every message: no raw control bytes.
  CHECK_THROWS_WITH(hrw::force_target(std::string_view("a\nb")), Contains("unknown SIMD target \"a\\nb\""));
  const auto runnable = hrw::runnable_targets();
  for (const hrw::SimdTarget& t : hrw::compiled_targets()) {
    bool runs = false;
    for (const auto& r : runnable) runs = runs || r.bits == t.bits;
    if (runs) continue;
    CHECK_THROWS_WITH(hrw::force_target(std::string_view(t.name)), Contains("cannot run"));
  }
  CHECK(hrw::forced_target() == 0);
  CHECK(hrw::force_target(std::string_view("auto")).bits == runnable.front().bits);
}

TEST_CASE("hrw --target and HRW_TARGET force the target of any command", "[targets][cli]") {
  using hrw::test::run_hrw;
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) {
    INFO("target " << t.name);
    // verify checks the forced target only: one line, naming it.
    auto res = run_hrw({"--target", t.name, "verify", "--pairs", "20000"});
    REQUIRE(res.exit_code == 0);
    CHECK(lines_of(res.out) == 1);
    CHECK_THAT(res.out, StartsWith(t.name + " "));
    res = run_hrw({"verify", "--pairs", "20000", "--target", lower(t.name)});
    REQUIRE(res.exit_code == 0);
    CHECK_THAT(res.out, StartsWith(t.name + " "));
    const EnvVar env("HRW_TARGET", t.name.c_str());
    res = run_hrw({"verify", "--pairs", "20000"});
    REQUIRE(res.exit_code == 0);
    CHECK(lines_of(res.out) == 1);
    CHECK_THAT(res.out, StartsWith(t.name + " "));
  }
  // Placements are the same whatever the target.
  hrw::test::TempDir dir;
  std::string keys;
  for (int i = 0; i < 3000; ++i) keys += "user:" + std::to_string(i) + "\n";
  const std::string keys_file = dir.write("keys.txt", keys);
  const auto base = run_hrw({"place", "--nodes", "a,b,c,d,e", "--keys", keys_file});
  REQUIRE(base.exit_code == 0);
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) {
    const auto forced =
        run_hrw({"place", "--nodes", "a,b,c,d,e", "--keys", keys_file, "--target", t.name});
    REQUIRE(forced.exit_code == 0);
    CHECK(forced.out == base.out);
  }
}

TEST_CASE("a bad --target or HRW_TARGET is one line, exit 2, naming its source",
          "[targets][cli]") {
  using hrw::test::run_hrw;
  auto res = run_hrw({"--target", "AVX9", "verify"});
  CHECK(res.exit_code == 2);
  CHECK(lines_of(res.err) == 1);
  CHECK_THAT(res.err, StartsWith("hrw: --target: unknown SIMD target \"AVX9\""));
  const EnvVar env("HRW_TARGET", "bogus");
  res = run_hrw({"select", "k", "--nodes", "a,b"});
  CHECK(res.exit_code == 2);
  CHECK(lines_of(res.err) == 1);
  CHECK_THAT(res.err, StartsWith("hrw: HRW_TARGET: unknown SIMD target \"bogus\""));
  // The flag wins over the environment.
  res = run_hrw({"select", "k", "--nodes", "a,b", "--target", "auto"});
  CHECK(res.exit_code == 0);
}

TEST_CASE("hrw --version names the version and the runnable targets", "[targets][cli]") {
  const auto res = hrw::test::run_hrw({"--version"});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, StartsWith(std::string("hrw ") + HRW_TEST_VERSION + "\nplacement contract v4\n"));
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) CHECK_THAT(res.out, Contains(" " + t.name));
}
