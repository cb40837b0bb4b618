// Sums of input numbers (checked_sum.hpp): exact up to 2^64 - 1, refused beyond, never
// wrapped — in the type itself, in a placement file, in a keys CSV for place and plan, and
// in the merge of plan parts that Python and Dask use.
#include <catch2/catch.hpp>

#include <limits>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/bulk.hpp"
#include "hrw/checked_sum.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/plan_parts.hpp"

using Catch::Matchers::Contains;
using hrw::test::run_hrw;
using hrw::test::TempDir;

namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("checked sums: exact up to 2^64 - 1, an input error naming what beyond", "[numbers][sums]") {
  CHECK(hrw::exact_sum(kMax - 1, 1) == kMax);
  CHECK(!hrw::exact_sum(kMax, 1));
  CHECK(!hrw::exact_sum(kMax / 2 + 1, kMax / 2 + 1));
  std::uint64_t total = kMax;
  CHECK_THROWS_WITH(hrw::add_checked(total, 1, "bytes"), "the bytes total exceeds 2^64 - 1");
  CHECK(total == kMax);  // unchanged, not wrapped
  CHECK_THROWS_AS(hrw::add_checked(total, 1, "bytes"), hrw::InputError);
  CHECK(std::string(hrw::sum_overflow("requests", "f.csv: line 3").what()) ==
        "f.csv: line 3: the requests total exceeds 2^64 - 1");

  // LoadCounts, the counts of every report, add through it.
  hrw::LoadCounts a{1, kMax, 0}, b{1, 1, 0};
  CHECK_THROWS_WITH(a += b, "the bytes total exceeds 2^64 - 1");
  hrw::LoadCounts c{1, 0, kMax - 5}, d{1, 0, 5};
  c += d;
  CHECK(c.requests == kMax);
  CHECK(c.keys == 2);
  hrw::KeyChunk chunk;
  chunk.keys.add("x");
  chunk.requests = {1};
  CHECK_THROWS_WITH(c.add(chunk, 0), "the requests total exceeds 2^64 - 1");
}

TEST_CASE("checked sums: a placement file whose bytes or requests overflow is refused, naming the line",
          "[cli][numbers][sums]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 2, "nodes": ["a", "b"]})");
  for (const char* column : {"bytes", "requests"}) {
    INFO(column);
    const std::string file =
        dir.write(std::string(column) + ".csv", std::string("key,owner,") + column + "\nx,a,18446744073709551615\ny,b,0\nz,a,1\n");
    for (const auto& args : std::vector<std::vector<std::string>>{
             {"check", "--cluster", view, "--placement", file},
             {"plan", "--from-placement", file, "--to", view, "--out", dir.file("p")}}) {
      const auto res = run_hrw(args);
      CHECK(res.exit_code == 2);
      CHECK(lines(res.err) == 1);
      CHECK_THAT(res.err, Contains(std::string(column) + ".csv: line 4: the " + column + " total exceeds 2^64 - 1"));
    }
  }
  // 2^64 - 1 in total still fits, and is reported exactly.
  const std::string fits = dir.write("fits.csv", "key,owner,bytes\nx,a,18446744073709551614\ny,b,1\n");
  const auto res = run_hrw({"plan", "--from-placement", fits, "--to", view, "--out", dir.file("q"), "--quiet"});
  REQUIRE(res.exit_code == 0);
  const auto summary = nlohmann::json::parse(hrw::test::read_file(dir.file("q/summary.json")));
  CHECK(summary["bytes"].get<std::uint64_t>() == kMax);
}

TEST_CASE("checked sums: keys CSVs for place and plan (R = 1 and R = 2)", "[cli][numbers][sums]") {
  TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": ["a", "b", "c"]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": ["a", "b", "c", "d"]})");
  const std::string keys = dir.write("k.csv", "key,bytes\nx,18446744073709551615\ny,1\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"place", "--cluster", a, "--keys", keys},
           {"place", "--cluster", a, "--keys", keys, "--replicas", "2"},
           {"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p")},
           {"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p"), "--replicas", "2"}}) {
    const auto res = run_hrw(args);
    CHECK(res.exit_code == 2);
    CHECK(res.err == "hrw: " + keys + ": line 3: the bytes total exceeds 2^64 - 1\n");
  }
}

TEST_CASE("checked sums: plan parts whose totals overflow are refused by the merge", "[numbers][sums][parts]") {
  hrw::ClusterSpec sa, sb;
  sa.version = 1;
  sb.version = 2;
  for (const char* id : {"a", "b"}) sa.nodes.push_back({id, std::nullopt, {}});
  for (const char* id : {"a", "b", "c"}) sb.nodes.push_back({id, std::nullopt, {}});
  const hrw::ClusterView a(sa), b(sb);
  hrw::KeyBatch keys;
  keys.add("x");
  const std::uint64_t big[] = {kMax}, one[] = {1};
  hrw::PartOptions options;
  const hrw::PlanPart p0 = hrw::plan_part(a, b, keys.view(), {big, big}, options);
  const hrw::PlanPart p1 = hrw::plan_part(a, b, keys.view(), {one, one}, options);
  CHECK(p0.summary.read.bytes == kMax);
  // Through summary.json, as Dask ships the parts.
  std::vector<hrw::PlanSummary> parts = {hrw::parse_summary_json(hrw::summary_json(p0.summary)),
                                         hrw::parse_summary_json(hrw::summary_json(p1.summary))};
  CHECK_THROWS_WITH(hrw::merge_summaries(a, b, 1, 1000, parts), "plan part 1: the bytes total exceeds 2^64 - 1");
  // The same part alone merges exactly.
  const hrw::PlanSummary alone = hrw::merge_summaries(a, b, 1, 1000, {parts[0]});
  CHECK(alone.read.bytes == kMax);
  CHECK(alone.read.requests == kMax);
}
