// Plans from the actual placement and hrw check (docs/plan.md): perturbed placements give
// exactly the reference's moves; check's exit codes; every bad placement file is one line
// and exit 2.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/plan.hpp"
#include "hrw/reference.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using hrw::test::holders;

namespace {

std::string header(std::uint32_t r) {
  if (r == 1) return "key,owner,bytes";
  std::string h = "key";
  for (std::uint32_t i = 1; i <= r; ++i) h += ",replica_" + std::to_string(i);
  return h + ",bytes";
}

}  // namespace

TEST_CASE("plan --from-placement with perturbed placements gives exactly the reference's moves", "[plan][placement]") {
  test::TempDir dir;
  std::mt19937_64 rng(23);
  std::vector<std::string> keys;
  for (auto& k : test::tricky_keys(test::scaled(1500, test::kEmulatedScale), 77, true))
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  for (int round = 0; round < 6; ++round) {
    const ClusterView a(test::make_spec(7, round % 2, round));
    const ClusterView b(test::mutate(test::make_spec(7, round % 2, round), rng, 1 + round % 3));
    for (std::uint32_t r : {1u, 3u}) {
      const std::string label = r > 1 && round % 2 ? "zone" : "";
      // Where the keys are: A's placement, then random keys moved to another node of A or
      // to a holder B does not know (a decommissioned node).
      std::string text = header(r) + "\n";
      std::vector<std::vector<std::string>> now;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        auto h = holders(a, keys[i], r, label);
        if (rng() % 5 == 0) {
          const std::string other = rng() % 3 ? a.node(static_cast<std::uint32_t>(rng() % a.size())).id : "gone-1";
          const std::size_t at = rng() % h.size();
          if (std::find(h.begin(), h.end(), other) == h.end()) h[at] = other;
        }
        text += csv::quoted(keys[i]);
        for (auto& id : h) text += "," + csv::quoted(id);
        for (std::size_t j = h.size(); j < r; ++j) text += ",";
        text += "," + std::to_string(i) + "\n";
        now.push_back(h);
      }
      const std::string current = dir.write("current.csv", text);
      PlacementPlanJob job;
      job.current = {current, std::nullopt, 1 + rng() % 400, {}};
      job.place.distinct_label = label;
      job.place.allow_partial = true;
      job.batch_size = 50;
      job.out_dir = dir.file("plan");
      const PlanSummary s = run_plan_from_placement(b, job);
      // The reference's rows: R = 1 from the current owner; R > 1 one row per node of B's
      // set not holding the key, copied from the best-ranked current holder B keeps, else
      // from the current owner (docs/plan.md).
      std::vector<std::vector<std::string>> expected = {{"batch", "key", "from", "to", "bytes"}};
      std::uint64_t moved = 0;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const auto target = holders(b, keys[i], r, label);
        const std::set<std::string> x(now[i].begin(), now[i].end()), y(target.begin(), target.end());
        if (x == y) continue;
        ++moved;
        std::string source = now[i][0];
        for (auto& id : now[i])
          if (y.count(id)) {
            source = id;
            break;
          }
        for (auto& id : target)
          if (!x.count(id))
            expected.push_back({std::to_string((expected.size() - 1) / 50 + 1), keys[i], source, id, std::to_string(i)});
      }
      CHECK(s.moved.keys == moved);
      CHECK(test::parse_csv_file(dir.file("plan/moves.csv")) == expected);
      const auto summary = nlohmann::json::parse(test::read_file(dir.file("plan/summary.json")));
      CHECK(summary["from_placement"] == current);
      CHECK(summary["keys"] == keys.size());
      // hrw check counts the same keys.
      CheckJob check;
      check.current.path = current;
      check.place = job.place;
      check.temp_dir = dir.file("");
      CHECK(check_placement(b, check).moved.keys == moved);
    }
  }
}

TEST_CASE("hrw check: exit 0 when every key is where the view puts it, 3 when not", "[cli][check]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}]})");
  std::string keys;
  for (int i = 0; i < 400; ++i) keys += "k" + std::to_string(i) + "\n";
  const std::string input = dir.write("k.txt", keys);
  for (std::string r : {"1", "2"}) {
    REQUIRE(test::run_hrw({"place", "--cluster", b, "--keys", input, "--replicas", r, "--out", dir.file("in_b.csv")}).exit_code == 0);
    REQUIRE(test::run_hrw({"place", "--cluster", a, "--keys", input, "--replicas", r, "--out", dir.file("in_a.csv")}).exit_code == 0);
    const auto ok = test::run_hrw({"check", "--cluster", b, "--placement", dir.file("in_b.csv")});
    CHECK(ok.exit_code == 0);
    CHECK_THAT(ok.out, Catch::Matchers::Contains("0 not where v2 puts them"));
    const auto off = test::run_hrw({"check", "--cluster", b, "--placement", dir.file("in_a.csv"), "--replicas", r});
    CHECK(off.exit_code == 3);
    // The plan from A's placement, executed, is B's placement: check then says 0.
    REQUIRE(test::run_hrw({"plan", "--from-placement", dir.file("in_a.csv"), "--to", b, "--out", dir.file("p")}).exit_code == 0);
    const auto plan = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
    CHECK_THAT(off.out, Catch::Matchers::Contains(std::to_string(plan["moved"].get<std::uint64_t>()) + " not where"));
  }
}

TEST_CASE("bad placement files: one line naming the file and line, exit 2", "[cli][check][errors]") {
  test::TempDir dir;
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})");
  std::string many = "key,owner\n";
  for (int i = 0; i < 5000; ++i) many += "k" + std::to_string(i) + ",a\n";
  many += "k1234,b\n";  // listed twice, far apart
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"key,owner\n", ""},  // placeholder replaced below
      {"name,owner\nx,a\n", "no \"key\" column"},
      {"key,replica_1,replica_2\nx,a,b\ny,a\n", "line 3"},
      {"key,replica_1,replica_2\nx,a,b,c\n", "line 2"},
      {"key,owner\nx,a\ny,b\nx,c\n", "line 4: key \"x\" is listed twice (first on line 2)"},
      {many, "line 5002: key \"k1234\" is listed twice (first on line 1236)"},
      {"key,replica_1,replica_3\nx,a,b\n", "replica_2 is missing"},
      {"key,owner\nx,\n", "no owner"},
      {"key,replica_1,replica_2\nx,a,a\n", "twice"},
      {"key,owner,bytes\nx,a,-1\n", "bytes must be a non-negative integer"},
      // Keys, ids and column names are quoted by the one rule of every message.
      {"key,owner\n\"a\nb\",a\n\"a\nb\",b\n", "line 4: key \"a\\nb\" is listed twice (first on line 2)"},
      {"key,owner\n" + std::string(200, 'k') + ",a\n" + std::string(200, 'k') + ",b\n",
       "key \"" + std::string(64, 'k')},
      {"key,replica_1,replica_2\nx,\"n\x01\",\"n\x01\"\n", "node \"n\\x01\" holds the key twice"},
  };
  for (std::size_t c = 1; c < cases.size(); ++c) {
    const std::string file = dir.write("p" + std::to_string(c) + ".csv", cases[c].first);
    for (auto args : std::vector<std::vector<std::string>>{
             {"check", "--cluster", b, "--placement", file},
             {"plan", "--from-placement", file, "--to", b, "--out", dir.file("out")}}) {
      const auto res = test::run_hrw(args);
      INFO(cases[c].first.substr(0, 60) << " / " << args[0]);
      CHECK(res.exit_code == 2);
      CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
      CHECK_THAT(res.err, Catch::Matchers::Contains(file) && Catch::Matchers::Contains(cases[c].second));
    }
  }
  // A replica count other than the file's, and plan's option mix-ups.
  const std::string two = dir.write("two.csv", "key,replica_1,replica_2\nx,a,b\n");
  for (auto args : std::vector<std::vector<std::string>>{
           {"check", "--cluster", b, "--placement", two, "--replicas", "3"},
           {"check", "--cluster", b, "--placement", two, "--replicas", "0"},
           {"plan", "--from-placement", two, "--to", b, "--out", dir.file("o"), "--replicas", "1"},
           {"plan", "--from-placement", two, "--from", b, "--to", b, "--out", dir.file("o")},
           {"plan", "--from-placement", two, "--keys", two, "--to", b, "--out", dir.file("o")},
           {"plan", "--to", b, "--out", dir.file("o")}}) {
    const auto res = test::run_hrw(args);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("out/moves.csv")));
}
