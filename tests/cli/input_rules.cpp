// Inputs and their environment (docs/errors.md): the placement reader's header rules (a
// byte-order mark skipped, a malformed replica_N refused), one FIFO rule for every input
// (read as a stream once a writer appears, a bounded wait otherwise), temporary-file
// failures named as the environment's, `hrw check` quoting ids by the one rule and naming
// --replicas only when it was given, and a library that writes nothing to stderr.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <thread>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/input_file.hpp"
#include "hrw/placement.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using hrw::test::run_hrw;
using hrw::test::TempDir;

namespace {

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Writes `text` into the FIFO after `delay`, once a reader has it open (bounded: 20 s).
std::thread late_writer(const std::string& fifo, std::chrono::milliseconds delay, std::string text) {
  return std::thread([=] {
    std::this_thread::sleep_for(delay);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int fd = -1;
    while ((fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 &&
           std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    if (fd < 0) return;
    ::fcntl(fd, F_SETFL, 0);
    if (!text.empty() && ::write(fd, text.data(), text.size()) < 0) {}
    ::close(fd);
  });
}

}  // namespace

TEST_CASE("placement reader: a UTF-8 byte-order mark is skipped, as in keys files", "[cli][placement]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b"]})");
  const auto placed = run_hrw({"place", "--cluster", view, "--keys", dir.write("k.txt", "x\ny\nz\n")});
  REQUIRE(placed.exit_code == 0);
  const std::string bom = dir.write("bom.csv", "\xEF\xBB\xBF" + placed.out);
  const auto res = run_hrw({"check", "--cluster", view, "--placement", bom});
  CHECK(res.exit_code == 0);
  CHECK_THAT(res.out, Contains("3 keys, 0 not where v2 puts them"));
  // Without the skip the first column would be "\xEF\xBB\xBFkey": no key column.
  const auto plan = run_hrw({"plan", "--from-placement", bom, "--to", view, "--out", dir.file("p"), "--quiet"});
  CHECK(plan.exit_code == 0);
}

TEST_CASE("placement reader: a column named replica... that is not replica_N is an error", "[cli][placement]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b", "c"]})");
  for (const char* header : {"key,replica_1,replica_02", "key,replica_01", "key,replica_1,replica_", "key,replica_1,replica2",
                             "key,replica_1,replica_x", "key,owner,replica", "key,replica_1,replica_2 "}) {
    INFO(header);
    const std::string file = dir.write("p.csv", std::string(header) + "\nx,a,b\n");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"check", "--cluster", view, "--placement", file},
             {"plan", "--from-placement", file, "--to", view, "--out", dir.file("out")}}) {
      const auto res = run_hrw(args);
      CHECK(res.exit_code == 2);
      CHECK(lines(res.err) == 1);
      CHECK_THAT(res.err, Contains("p.csv: line 1: column \"replica") &&
                              Contains("is not a replica column (replica_1, replica_2, ...)"));
    }
  }
  // Other unknown columns are refused too, unless named to be skipped (csv_columns.cpp).
  const std::string noted = dir.write("noted.csv", "key,replica_1,note\nx,a,hello\n");
  CHECK(run_hrw({"check", "--cluster", view, "--placement", noted}).exit_code == 2);
  CHECK(run_hrw({"check", "--cluster", view, "--placement", noted, "--ignore-columns", "note"}).exit_code != 2);
}

TEST_CASE("FIFO inputs: read as a stream once a writer appears, for keys, placements and clusters",
          "[cli][fifo]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b"]})");
  const std::string keys = dir.file("keys.fifo"), placement = dir.file("placement.fifo"),
                    cluster = dir.file("cluster.fifo");
  for (const auto& f : {keys, placement, cluster}) REQUIRE(::mkfifo(f.c_str(), 0600) == 0);
  {
    std::thread w = late_writer(keys, std::chrono::milliseconds(700), "x\ny\n");
    const auto res = run_hrw({"place", "--cluster", view, "--keys", keys, "--quiet"});
    w.join();
    CHECK(res.exit_code == 0);
    CHECK(lines(res.out) == 3);
  }
  {
    std::thread w = late_writer(placement, std::chrono::milliseconds(700), "key,owner\nx,a\n");
    const auto res = run_hrw({"check", "--cluster", view, "--placement", placement});
    w.join();
    CHECK(res.exit_code != 2);
    CHECK_THAT(res.out, Contains("1 keys"));
  }
  {
    std::thread w = late_writer(cluster, std::chrono::milliseconds(700), R"({"version": 3, "nodes": ["a"]})");
    const auto res = run_hrw({"select", "k", "--cluster", cluster});
    w.join();
    CHECK(res.exit_code == 0);
    CHECK_THAT(res.out, Contains("version 3"));
  }
  {
    // A writer that opens and closes without writing: an empty input, at once.
    std::thread w = late_writer(keys, std::chrono::milliseconds(200), "");
    const auto res = run_hrw({"place", "--cluster", view, "--keys", keys, "--quiet"});
    w.join();
    CHECK(res.exit_code == 0);
    CHECK(res.out == "key,owner\n");
  }
}

TEST_CASE("FIFO inputs: no writer is a bounded wait, then one line naming the file", "[cli][fifo]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b"]})");
  const std::string fifo = dir.file("nobody.fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto start = std::chrono::steady_clock::now();
  const auto res = run_hrw({"check", "--cluster", view, "--placement", fifo});
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + fifo + ": no writer opened the FIFO within 5 s\n");
  CHECK(seconds >= hrw::kFifoWaitSeconds - 0.5);
  CHECK(seconds < hrw::kFifoWaitSeconds + 10);
}

TEST_CASE("temporary files: a missing TMPDIR or a full disk is the environment, exit 2 naming the folder",
          "[cli][spill]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b"]})");
  std::string text = "key,owner\n";
  for (int i = 0; i < 20000; ++i) text += "some-longer-key-" + std::to_string(i) + ",a\n";
  const std::string placement = dir.write("p.csv", text);
  {
    const auto res = hrw::test::run_hrw_with_env({"check", "--cluster", view, "--placement", placement}, "", {"TMPDIR=/nonexistent/hrw-tmp"});
    CHECK(res.exit_code == 2);
    CHECK(res.err == "hrw: temporary folder \"/nonexistent/hrw-tmp\": cannot create a temporary file: "
                     "No such file or directory\n");
  }
  {
    // A folder that is not writable (root may write anyway: then only the exit code is known).
    const std::string ro = dir.file("ro");
    std::filesystem::create_directory(ro);
    ::chmod(ro.c_str(), 0500);
    const auto res = hrw::test::run_hrw_with_env({"check", "--cluster", view, "--placement", placement}, "", {"TMPDIR=" + ro});
    if (::geteuid() != 0) {
      CHECK(res.exit_code == 2);
      CHECK_THAT(res.err, StartsWith("hrw: temporary folder \"" + ro + "\": cannot create a temporary file: "));
    } else {
      CHECK(res.exit_code == 3);  // written: every key is on "a", half belong on "b"
    }
  }
  // A full disk: a 64 KiB tmpfs. Mounting needs root (the suite runs as root, as CI does):
  // a run that cannot mount fails, rather than pass without checking.
  const std::string small = dir.file("small");
  std::filesystem::create_directory(small);
  if (::mount("tmpfs", small.c_str(), "tmpfs", 0, "size=64k") != 0)
    FAIL("cannot mount a 64 KiB tmpfs for the full-disk case (needs root): " << std::strerror(errno));
  struct Unmount {
    std::string path;
    ~Unmount() { ::umount(path.c_str()); }
  } unmount{small};
  const auto res = hrw::test::run_hrw_with_env({"check", "--cluster", view, "--placement", placement}, "", {"TMPDIR=" + small});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: temporary folder \"" + small + "\": cannot write a temporary file: No space left on device\n");
  // The plan from a placement spills into its output folder: the same rule there.
  const auto plan = run_hrw({"plan", "--from-placement", placement, "--to", view, "--out", small + "/plan"});
  CHECK(plan.exit_code == 2);
  CHECK_THAT(plan.err, StartsWith("hrw: temporary folder \"" + small + "/.plan.tmp-"));
}

TEST_CASE("hrw check: node ids through the one quoting rule, --replicas named only when given", "[cli][check]") {
  TempDir dir;
  // An id with a newline would otherwise print a forged row "x  999  999".
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b\nx  999  999", "c\u0001"]})");
  std::string text = "key,owner\n";
  for (int i = 0; i < 300; ++i) text += "k" + std::to_string(i) + ",a\n";
  const std::string placement = dir.write("p.csv", text);
  const auto res = run_hrw({"check", "--cluster", view, "--placement", placement});
  CHECK(res.exit_code == 3);
  CHECK_THAT(res.out, Contains("\"b\\nx  999  999\"") && Contains("\"c\\x01\""));
  for (std::size_t at = 0, next; (next = res.out.find('\n', at)) != std::string::npos; at = next + 1) {
    const std::string line = res.out.substr(at, next - at);
    INFO(line);
    CHECK((line.rfind("check ", 0) == 0 || line.rfind("node", 0) == 0 || line.rfind("\"", 0) == 0));
  }
  // The replica count comes from the placement's columns: the message names the file.
  const std::string three = dir.write("three.csv", "key,replica_1,replica_2,replica_3,replica_4\nx,a,b,c,d\n");
  auto err = run_hrw({"check", "--cluster", view, "--placement", three});
  CHECK(err.exit_code == 2);
  CHECK_THAT(err.err, !Contains("--replicas"));
  CHECK(err.err == "hrw: " + three + ": the placement's replica count 4 exceeds the 3 node(s) of " + view + "\n");
  err = run_hrw({"plan", "--from-placement", three, "--to", view, "--out", dir.file("p")});
  CHECK(err.exit_code == 2);
  CHECK_THAT(err.err, !Contains("--replicas") && Contains("three.csv: the placement's replica count 4"));
  // Given on the command line, it is named.
  err = run_hrw({"check", "--cluster", view, "--placement", three, "--replicas", "4"});
  CHECK(err.exit_code == 2);
  CHECK_THAT(err.err, StartsWith("hrw: --replicas 4 exceeds"));
}

TEST_CASE("library: more threads than cores start no oneTBB warning on stderr", "[library][threads]") {
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  CHECK(hrw::worker_threads(0) == 0);
  CHECK(hrw::worker_threads(1) == 1);
  CHECK(hrw::worker_threads(cores * 4 + 3) <= cores);
  // stderr captured around library calls asking for 4x the cores.
  hrw::ClusterSpec spec;
  for (int i = 0; i < 16; ++i) spec.nodes.push_back({"n" + std::to_string(i), std::nullopt, {}});
  const hrw::ClusterView view(spec);
  hrw::KeyBatch keys;
  for (int i = 0; i < 200000; ++i) keys.add("key-" + std::to_string(i));
  std::fflush(stderr);
  char path[] = "/tmp/hrw-stderr-XXXXXX";
  const int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fd, STDERR_FILENO);
  hrw::PlaceOptions options;
  options.threads = cores * 4 + 3;
  const hrw::Placement p = hrw::place(view, keys, options);
  hrw::PlaceOptions one;
  one.threads = 1;
  const hrw::Placement q = hrw::place(view, keys, one);
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  const std::string captured = hrw::test::read_file(path);
  ::close(fd);
  ::unlink(path);
  CHECK(captured.empty());
  CHECK(p.nodes == q.nodes);
}
