// hrw bench (docs/bench.md): the report's JSON schema, a saved run read back strictly, the
// ratios of --compare, and the reference check that refuses a wrong kernel. The library runs
// a tiny configuration (one call per repetition, a few hundred keys): these tests check what
// is reported, never how fast.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <set>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/op_bounds.hpp"
#include "cli_runner.hpp"
#include "hrw/bench.hpp"
#include "hrw/errors.hpp"
#include "hrw/targets.hpp"

using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

hrw::BenchOptions tiny_options() {
  hrw::BenchOptions o;
  o.repetitions = 2;
  o.rep_seconds = 0;  // one call per repetition
  o.pairs_per_call = 2560;
  o.keys_per_call = 256;
  o.checked_keys = 64;
  o.node_counts = {10};
  return o;
}

// The probes' checksums computed lane by lane: lane l of chain c starts at seed + c + l; the
// result is the lane sum of the chains' xor (pair: of best score ^ its node index).
std::uint32_t mul_model(unsigned lanes, int chains, std::int64_t calls, std::uint32_t seed) {
  std::uint32_t sum = 0;
  for (unsigned l = 0; l < lanes; ++l) {
    std::uint32_t x = 0;
    for (int c = 0; c < chains; ++c) {
      std::uint32_t acc = seed + static_cast<std::uint32_t>(c) + l;
      for (std::int64_t k = 0; k < calls * hrw::bench::kProbeInner; ++k) acc *= 0x01000193u;
      x ^= acc;
    }
    sum += x;
  }
  return sum;
}

std::uint32_t pair_model(unsigned lanes, int chains, std::int64_t calls, std::uint32_t seed) {
  std::uint32_t sum = 0;
  for (unsigned l = 0; l < lanes; ++l) {
    std::uint32_t x = 0;
    for (int c = 0; c < chains; ++c) {
      std::uint32_t h = seed + static_cast<std::uint32_t>(c) + l;
      std::int32_t best = INT32_MIN;
      std::uint32_t node = 0;
      for (std::int64_t call = 0; call < calls; ++call)
        for (std::uint32_t i = 0; i < static_cast<std::uint32_t>(hrw::bench::kProbeInner); ++i) {
          h = (h ^ (0x30u + (i & 7))) * 0x01000193u;
          std::uint32_t s = (h ^ (h >> 16)) * 0x85EBCA6Bu;
          s = (s ^ (s >> 13)) * 0xC2B2AE35u;
          const auto score = static_cast<std::int32_t>(s ^ (s >> 16) ^ 0x80000000u);
          if (score > best) best = score, node = i;
        }
      x ^= static_cast<std::uint32_t>(best) ^ node;
    }
    sum += x;
  }
  return sum;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// A saved report with the given figures ("name": median), min = median / 2, max = median * 2.
std::string saved_run(const std::vector<std::pair<std::string, double>>& figures, const std::string& cpu = "cpu A") {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [name, median] : figures)
    list.push_back({{"name", name}, {"unit", "keys/s"}, {"detail", "d"}, {"median", median},
                    {"min", median / 2}, {"max", median * 2}, {"spread", 1.5}, {"repetitions", 3}});
  return nlohmann::json{{"schema", "hrw-bench"}, {"schema_version", 1}, {"hrw_version", "0"},
                        {"cpu", cpu},           {"targets", {"AVX2"}}, {"threads", 2},
                        {"quick", true},        {"figures", list}}
      .dump();
}

}  // namespace

TEST_CASE("bench: every figure is reported, typed, and read back from the JSON", "[bench]") {
  const hrw::BenchReport report = hrw::run_bench(tiny_options());
  std::set<std::string> want = {"keys/place/1-thread", "keys/place/all-threads", "keys/plan/1-thread",
                                "keys/plan/all-threads", "pairbound"};
  std::vector<std::string> targets;
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) {
    if (hrw::forced_target() != 0 && t.bits != hrw::forced_target()) continue;  // HRW_TARGET: that one only
    targets.push_back(t.name);
    want.insert("pairs/" + t.name + "/unweighted/10");
    want.insert("pairs/" + t.name + "/weighted/10");
  }
  CHECK(report.targets == targets);

  const auto j = nlohmann::json::parse(hrw::bench_json(report));
  CHECK(j.at("schema") == "hrw-bench");
  CHECK(j.at("schema_version") == 1);
  CHECK(j.at("hrw_version") == HRW_TEST_VERSION);
  CHECK(j.at("cpu").is_string());
  CHECK(!j.at("cpu").get<std::string>().empty());
  CHECK(j.at("targets") == targets);
  CHECK(j.at("threads").is_number_unsigned());
  CHECK(j.at("threads").get<unsigned>() >= 1);
  CHECK(j.at("quick") == false);
  std::set<std::string> names;
  for (const auto& f : j.at("figures")) {
    INFO(f.dump());
    names.insert(f.at("name").get<std::string>());
    CHECK(f.at("detail").is_string());
    const std::string unit = f.at("unit");
    CHECK(unit == (f.at("name").get<std::string>().rfind("keys/", 0) == 0 ? "keys/s" : "pair-scores/s"));
    for (const char* field : {"median", "min", "max", "spread"}) CHECK(f.at(field).is_number());
    CHECK(f.at("min").get<double>() > 0);
    CHECK(f.at("min").get<double>() <= f.at("median").get<double>());
    CHECK(f.at("median").get<double>() <= f.at("max").get<double>());
    CHECK(f.at("spread").get<double>() ==
          (f.at("max").get<double>() - f.at("min").get<double>()) / f.at("median").get<double>());
    CHECK(f.at("repetitions") == 2);
  }
  CHECK(names == want);

  // What a later --compare reads: the same figures, and a ratio of exactly 1 to itself.
  const hrw::BenchReport back = hrw::parse_bench_json(hrw::bench_json(report), "run.json");
  REQUIRE(back.figures.size() == report.figures.size());
  const hrw::BenchComparison self = hrw::compare_bench(report, back, "run.json");
  CHECK(self.ratios.size() == report.figures.size());
  for (const auto& r : self.ratios) CHECK(r.ratio == 1.0);
  CHECK(self.only_now.empty());
  CHECK(self.only_base.empty());
  CHECK_THAT(hrw::bench_table(report), Contains("pairbound") && Contains("keys/plan/all-threads"));
}

TEST_CASE("op-bound probes: the op mix they time, lane by lane, on every runnable ISA", "[bench]") {
  using hrw::bench::ProbeIsa;
  const std::vector<ProbeIsa> runnable = hrw::bench::runnable_probe_isas();
  for (const ProbeIsa isa : {ProbeIsa::avx512, ProbeIsa::avx2, ProbeIsa::neon}) {
    INFO(hrw::bench::probe_isa_name(isa));
    if (std::find(runnable.begin(), runnable.end(), isa) == runnable.end()) {
      CHECK_THROWS_AS(hrw::bench::run_pair_probe(isa, 4, 1, 0), std::invalid_argument);
      continue;
    }
    for (const int chains : hrw::bench::kProbeChains)
      for (const std::int64_t calls : {1, 2}) {
        INFO(chains << " chains, " << calls << " calls");
        const unsigned lanes = hrw::bench::probe_lanes(isa);
        CHECK(hrw::bench::run_mul_probe(isa, chains, calls, 7u + calls) == mul_model(lanes, chains, calls, 7u + calls));
        CHECK(hrw::bench::run_pair_probe(isa, chains, calls, 9u + calls) == pair_model(lanes, chains, calls, 9u + calls));
      }
    CHECK_THROWS_AS(hrw::bench::run_pair_probe(isa, 5, 1, 0), std::invalid_argument);
    CHECK_THROWS_AS(hrw::bench::run_mul_probe(isa, 0, 1, 0), std::invalid_argument);
  }
}

TEST_CASE("bench: a result that differs from the scalar reference is an error, not a figure", "[bench]") {
  hrw::BenchOptions o = tiny_options();
  o.corrupt_first_check = true;
  const std::string first = "pairs/" + hrw::run_bench(tiny_options()).targets.front() + "/unweighted/10";
  CHECK_THROWS_AS(hrw::run_bench(o), hrw::BenchMismatch);
  CHECK_THROWS_WITH(hrw::run_bench(o),
                    StartsWith("bench " + first + ": key \"") && Contains("by the scalar reference"));
  // Through the CLI: exit 1, one line, no report published.
  TempDir dir;
  const auto res = run_hrw({"bench", "--quick", "--corrupt-first-check", "--out", dir.file("r.json")});
  CHECK(res.exit_code == 1);
  CHECK(lines(res.err) == 1);
  CHECK_THAT(res.err, StartsWith("hrw: internal error: bench " + first + ": key \"") &&
                          Contains("a wrong kernel is not benchmarked"));
  CHECK(res.out.empty());
  CHECK(!std::filesystem::exists(dir.file("r.json")));
}

TEST_CASE("bench --compare: each figure's ratio to the saved run, figures on one side listed", "[bench]") {
  TempDir dir;
  const std::string now_file = dir.write("now.json", saved_run({{"a", 3e9}, {"b", 1e6}, {"new", 5}}, "cpu N"));
  const std::string base_file = dir.write("base.json", saved_run({{"old", 7}, {"b", 4e6}, {"a", 1.5e9}}, "cpu B"));
  const hrw::BenchReport now = hrw::load_bench_json(now_file);
  const hrw::BenchReport base = hrw::load_bench_json(base_file);
  const hrw::BenchComparison c = hrw::compare_bench(now, base, base_file);
  REQUIRE(c.ratios.size() == 2);
  CHECK(c.ratios[0].name == "a");
  CHECK(c.ratios[0].now == 3e9);
  CHECK(c.ratios[0].base == 1.5e9);
  CHECK(c.ratios[0].ratio == 2.0);
  CHECK(c.ratios[1].name == "b");
  CHECK(c.ratios[1].ratio == 0.25);
  CHECK(c.only_now == std::vector<std::string>{"new"});
  CHECK(c.only_base == std::vector<std::string>{"old"});
  CHECK(c.base_cpu == "cpu B");
  const std::string table = hrw::comparison_table(c);
  CHECK_THAT(table, Contains("2.000x") && Contains("0.250x") && Contains("only in this run: new\n") &&
                        Contains("only in " + base_file + ": old\n"));
  const auto j = nlohmann::json::parse(hrw::bench_json(now, c));
  CHECK(j.at("comparison").at("ratios").at(0).at("ratio") == 2.0);
  CHECK(j.at("comparison").at("only_base") == std::vector<std::string>{"old"});
}

TEST_CASE("bench --compare: a figure saved in another unit gets no ratio, and is listed", "[bench]") {
  TempDir dir;
  hrw::BenchReport now = hrw::load_bench_json(dir.write("now.json", saved_run({{"a", 3e9}, {"b", 10}})));
  auto base_json = nlohmann::json::parse(saved_run({{"a", 1e9}, {"b", 5}}));
  base_json["figures"][0]["unit"] = "pair-scores/s";
  const std::string base_file = dir.write("base.json", base_json.dump());
  const hrw::BenchComparison c = hrw::compare_bench(now, hrw::load_bench_json(base_file), base_file);
  REQUIRE(c.ratios.size() == 1);
  CHECK(c.ratios[0].name == "b");
  REQUIRE(c.other_unit.size() == 1);
  CHECK(c.other_unit[0] == "a (keys/s here, pair-scores/s saved)");
  CHECK_THAT(hrw::comparison_table(c), Contains("not compared, in another unit: a ("));
  CHECK(nlohmann::json::parse(hrw::bench_json(now, c)).at("comparison").at("other_unit").size() == 1);
}

TEST_CASE("bench --compare: a bad saved run is refused naming the file and the field", "[bench]") {
  const std::string good = saved_run({{"a", 2}});
  auto edited = [&](const std::function<void(nlohmann::json&)>& edit) {
    auto j = nlohmann::json::parse(good);
    edit(j);
    return j.dump();
  };
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"[1]", "f.json: the top level: expected an object (a `hrw bench --format json` report)"},
      {edited([](auto& j) { j["schema"] = "other"; }),
       "f.json: schema: expected \"hrw-bench\" (a `hrw bench --format json` report)"},
      {edited([](auto& j) { j["schema_version"] = 2; }),
       "f.json: schema_version: 2 is not a version this hrw reads (it reads 1)"},
      {edited([](auto& j) { j.erase("cpu"); }), "f.json: cpu: missing"},
      {edited([](auto& j) { j["threads"] = -1; }), "f.json: threads: expected an integer from 0 to 1048576, got -1"},
      {edited([](auto& j) { j["quick"] = "yes"; }), "f.json: quick: expected true or false"},
      {edited([](auto& j) { j["targets"][0] = 5; }), "f.json: targets[0]: expected a string"},
      {edited([](auto& j) { j["figures"] = 5; }), "f.json: figures: expected an array"},
      {edited([](auto& j) { j["figures"][0].erase("median"); }), "f.json: figures[0].median: missing"},
      {edited([](auto& j) { j["figures"][0]["median"] = "fast"; }), "f.json: figures[0].median: expected a number"},
      {edited([](auto& j) { j["figures"][0]["min"] = 0; }), "f.json: figures[0].min: expected a number > 0, got 0"},
      {edited([](auto& j) { j["figures"][0]["max"] = 1.5; }), "f.json: figures[0]: expected min <= median <= max"},
      {edited([](auto& j) { j["figures"][0]["repetitions"] = 1.5; }),
       "f.json: figures[0].repetitions: expected an integer from 0 to 1048576, got 1.5"},
      {edited([](auto& j) { j["figures"].push_back(j["figures"][0]); }),
       "f.json: figures[1].name: \"a\" is listed twice"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    CHECK_THROWS_MATCHES(hrw::parse_bench_json(text, "f.json"), hrw::InputError, Catch::Matchers::Message(message));
  }
  CHECK_THROWS_AS(hrw::parse_bench_json("{\"schema\": ", "f.json"), hrw::InputError);
  CHECK_THROWS_WITH(hrw::parse_bench_json("{\"schema\": ", "f.json"), StartsWith("f.json: line 1, column 12: malformed JSON: "));

  // Through the CLI, before anything is measured: exit 2, one line.
  TempDir dir;
  const std::string bad = dir.write("bad.json", "{\"schema\": \"hrw-bench\",");
  auto res = run_hrw({"bench", "--compare", bad});
  CHECK(res.exit_code == 2);
  CHECK(lines(res.err) == 1);
  CHECK_THAT(res.err, StartsWith("hrw: " + bad + ": line 1, column "));
  CHECK_THAT(res.err, Contains(": malformed JSON: "));
  CHECK_FALSE(Contains("json.exception").match(res.err));
  CHECK(res.out.empty());
  // Raw bytes of the file never reach the terminal.
  res = run_hrw({"bench", "--compare", dir.write("bytes.json", "\xff\xfe{\n\x1b")});
  CHECK(res.exit_code == 2);
  CHECK(lines(res.err) == 1);
  CHECK(res.err.find('\xff') == std::string::npos);
  CHECK(res.err.find('\x1b') == std::string::npos);
  res = run_hrw({"bench", "--compare", dir.file("missing.json")});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, StartsWith("hrw: " + dir.file("missing.json") + ": cannot open: "));
  // A FIFO no one writes to is a bounded wait, then one line (it once waited for ever).
  const std::string fifo = dir.file("fifo.json");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  res = run_hrw({"bench", "--compare", fifo});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + fifo + ": no writer opened the FIFO within 5 s\n");
  const std::string typed = dir.write("typed.json", edited([](auto& j) { j["figures"][0]["unit"] = 1; }));
  res = run_hrw({"bench", "--compare", typed, "--format", "json"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + typed + ": figures[0].unit: expected a string\n");
  // --out never over the saved run it reads.
  res = run_hrw({"bench", "--compare", typed, "--out", typed});
  CHECK(res.exit_code == 2);
  CHECK(lines(res.err) == 1);
  CHECK_THAT(res.err, Contains("same file"));
}

TEST_CASE("bench: the timed repetitions of a run fit timed_seconds, whatever rep_seconds asks", "[bench]") {
  // With many targets the default 5 x 0.15 s per figure would overrun the 30 s a run
  // promises; rep_seconds shrinks to timed_seconds / (figures x repetitions) instead.
  hrw::BenchOptions o = tiny_options();
  o.rep_seconds = 30.0;    // alone: at least a minute
  o.timed_seconds = 1.0;   // what the run may spend timing
  const auto t0 = std::chrono::steady_clock::now();
  const hrw::BenchReport report = hrw::run_bench(o);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(!report.figures.empty());
  CHECK(seconds < 20.0);  // 1 s timed, plus checks and warm-ups on a loaded or emulated CPU
}
