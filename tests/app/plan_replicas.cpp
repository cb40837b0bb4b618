// R > 1 plans report like with like (contract §7): owner changes with the
// owner ideal, replica-slot moves with the slot ideal, changed sets without an ideal.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/plan.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using hrw::test::holders;

namespace {

}  // namespace

TEST_CASE("R > 1 summaries: owner changes, slot moves and changed sets against the reference", "[plan][replicas]") {
  test::TempDir dir;
  std::string text = "key\n";
  const auto keys = test::tricky_keys(test::scaled(1500, test::kEmulatedScale), 5, true);
  for (auto& k : keys) text += csv::quoted(k) + "\n";
  const std::string input = dir.write("k.csv", text);
  std::mt19937_64 rng(9);
  std::vector<std::pair<ClusterSpec, ClusterSpec>> changes;
  // The case that started this test: three nodes, R = 3, a reweight. Every key keeps its set.
  ClusterSpec three;
  three.version = 1;
  for (const char* id : {"a", "b", "c"}) three.nodes.push_back({id, 1.0, {}});
  ClusterSpec reweighted = three;
  reweighted.version = 2;
  reweighted.nodes[0].weight = 3.0;
  changes.emplace_back(three, reweighted);
  for (int i = 0; i < 4; ++i)
    changes.emplace_back(test::make_spec(7, i % 2, 1), test::mutate(test::make_spec(7, i % 2, 1), rng, 2));
  for (auto& [sa, sb] : changes) {
    const ClusterView a(sa), b(sb);
    for (std::string label : {"", "zone"}) {
      if (&sa == &changes.front().first && !label.empty()) continue;
      PlanJob job;
      job.keys = {input, std::nullopt, 300, std::nullopt, {}};
      job.place.replicas = 3;
      job.place.distinct_label = label;
      job.place.allow_partial = true;
      job.out_dir = dir.file("p");
      run_plan(a, b, job);
      std::uint64_t owner = 0, slots = 0, sets = 0;
      std::map<std::string, std::int64_t> slot_diff;
      for (auto& k : keys) {
        const auto ha = holders(a, k, 3, label), hb = holders(b, k, 3, label);
        owner += ha.front() != hb.front();
        const std::set<std::string> x(ha.begin(), ha.end()), y(hb.begin(), hb.end());
        sets += x != y;
        for (auto& id : y) slots += !x.count(id);
        for (auto& id : x) ++slot_diff[id];
        for (auto& id : y) --slot_diff[id];
      }
      // Contract v4 §7: the slots B holds beyond A's, node by node, over R_B · keys.
      double gains = 0;
      for (auto& [id, d] : slot_diff) gains += static_cast<double>(std::max<std::int64_t>(0, -d));
      const double n = static_cast<double>(keys.size());
      const auto s = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
      CHECK(s["owner_changes"] == owner);
      CHECK(s["owner_changes_fraction"].get<double>() == Approx(static_cast<double>(owner) / n));
      CHECK(s["owner_ideal_fraction"].get<double>() == Approx(ideal_fraction(a, b)));
      CHECK(s["slot_moves"] == slots);
      CHECK(s["slot_moves_fraction"].get<double>() == Approx(static_cast<double>(slots) / (3 * n)));
      CHECK(s["slot_ideal_fraction"].get<double>() == Approx(gains / (3 * n)));
      CHECK(s["slot_ideal_fraction"].get<double>() <= s["slot_moves_fraction"].get<double>() + 1e-12);
      CHECK(s["set_changed"] == sets);
      // Gone: a moved fraction of one unit next to an ideal of another.
      CHECK_FALSE(s.contains("ideal_fraction"));
      CHECK_FALSE(s.contains("moved_fraction"));
      if (&sa == &changes.front().first) {
        CHECK(sets == 0);
        CHECK(owner > 0);  // the reweight changes owners, which the report now shows
      }
    }
  }
}

TEST_CASE("R > 1 slot ideal: a lower bound when the target holds fewer slots (contract v4 §7)",
          "[plan][replicas]") {
  test::TempDir dir;
  std::string text = "key\n";
  for (int i = 0; i < 3000; ++i) text += "k" + std::to_string(i) + "\n";
  const std::string input = dir.write("k.csv", text);
  // Three zones of two nodes, R = 3 across zones; B loses zone z2, so its sets hold two
  // nodes (partial): B holds a third fewer slots than A.
  ClusterSpec sa;
  sa.version = 1;
  for (int z = 0; z < 3; ++z)
    for (int n = 0; n < 2; ++n)
      sa.nodes.push_back({"n" + std::to_string(z) + std::to_string(n), std::nullopt, {{"zone", "z" + std::to_string(z)}}});
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes.resize(4);
  const ClusterView a(sa), b(sb);
  PlanJob job;
  job.keys = {input, std::nullopt, 300, std::nullopt, {}};
  job.place.replicas = 3;
  job.place.distinct_label = "zone";
  job.place.allow_partial = true;
  job.out_dir = dir.file("p");
  run_plan(a, b, job);
  std::map<std::string, std::int64_t> slot_diff;  // slots in A minus slots in B
  std::uint64_t copies = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string k = "k" + std::to_string(i);
    const auto ha = holders(a, k, 3, "zone"), hb = holders(b, k, 3, "zone");
    const std::set<std::string> x(ha.begin(), ha.end());
    for (auto& id : hb) copies += !x.count(id);
    for (auto& id : ha) ++slot_diff[id];
    for (auto& id : hb) --slot_diff[id];
  }
  double gains = 0, v2 = 0;
  for (auto& [id, d] : slot_diff) {
    gains += static_cast<double>(std::max<std::int64_t>(0, -d));
    v2 += 0.5 * static_cast<double>(std::abs(d));
  }
  const double slots = 3.0 * 3000;
  const auto s = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  CHECK(s["slot_moves"] == copies);
  CHECK(s["slot_ideal_fraction"].get<double>() == Approx(gains / slots));
  // The ideal bounds the copies made from below; the v2 formula did not, here.
  CHECK(s["slot_ideal_fraction"].get<double>() <= s["slot_moves_fraction"].get<double>() + 1e-12);
  CHECK(v2 / slots > s["slot_moves_fraction"].get<double>());
}

TEST_CASE("hrw plan R > 1: stderr and the SVG name each count with its own ideal", "[cli][plan][replicas]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": [{"id": "a", "weight": 3}, {"id": "b"}, {"id": "c"}]})");
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "k" + std::to_string(i) + "\n";
  const std::string input = dir.write("k.txt", keys);
  const auto res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", input, "--replicas", "3",
                                  "--out", dir.file("p"), "--svg", dir.file("p.svg")});
  REQUIRE(res.exit_code == 0);
  using Catch::Matchers::Contains;
  CHECK_THAT(res.err, Contains("owner changes") && Contains("owner ideal") && Contains("slot ideal") &&
                          Contains("keys whose replica set changed 0"));
  CHECK_THAT(res.err, !Contains(" moved ("));
  CHECK_THAT(test::read_file(dir.file("p.svg")), Contains("owner changes") && Contains("slot moves"));
}

TEST_CASE("R > 1 bytes: copied, of changed sets, and each node's fill, in the plan and place --stats",
          "[plan][replicas]") {
  test::TempDir dir;
  // Three zones of four nodes, R = 3 across zones. B loses n03 (z0) and n13 (z1): a key
  // that held both is copied twice, so bytes copied and bytes of changed sets differ.
  ClusterSpec sa;
  sa.version = 1;
  for (int z = 0; z < 3; ++z)
    for (int n = 0; n < 4; ++n)
      sa.nodes.push_back({"n" + std::to_string(z) + std::to_string(n), std::nullopt, {{"zone", "z" + std::to_string(z)}}});
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes.erase(sb.nodes.begin() + 7);
  sb.nodes.erase(sb.nodes.begin() + 3);
  const ClusterView a(sa), b(sb);
  const std::string a_json = dir.write("a.json", view_json(sa)), b_json = dir.write("b.json", view_json(sb));
  std::string text = "key,bytes\n";
  std::vector<std::pair<std::string, std::uint64_t>> keys;
  for (int i = 0; i < 3000; ++i) keys.emplace_back("k" + std::to_string(i), 1 + (i * 7919) % 5000);
  for (auto& [k, bytes] : keys) text += k + "," + std::to_string(bytes) + "\n";
  const std::string input = dir.write("k.csv", text);

  std::uint64_t copied = 0, set_changed = 0, total = 0;
  std::map<std::string, std::uint64_t> fill_before, fill_after;
  for (auto& [k, bytes] : keys) {
    const auto ha = holders(a, k, 3, "zone"), hb = holders(b, k, 3, "zone");
    const std::set<std::string> x(ha.begin(), ha.end()), y(hb.begin(), hb.end());
    total += bytes;
    if (x != y) set_changed += bytes;
    for (auto& id : y) copied += x.count(id) ? 0 : bytes;
    for (auto& id : x) fill_before[id] += bytes;
    for (auto& id : y) fill_after[id] += bytes;
  }
  REQUIRE(copied != set_changed);  // else the two fields could be swapped unseen

  const auto res = test::run_hrw({"plan", "--from", a_json, "--to", b_json, "--keys", input, "--replicas", "3",
                                  "--distinct", "zone", "--out", dir.file("p")});
  REQUIRE(res.exit_code == 0);
  const auto s = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  CHECK(s["bytes"] == total);
  CHECK(s["bytes_moved"] == set_changed);
  CHECK(s["bytes_set_changed"] == set_changed);
  CHECK(s["bytes_copied"] == copied);
  std::uint64_t rows_bytes = 0;  // moves.csv itself: one key's bytes per copy row
  const auto rows = test::parse_csv_file(dir.file("p/moves.csv"));
  const auto bytes_col = std::find(rows[0].begin(), rows[0].end(), "bytes") - rows[0].begin();
  REQUIRE(bytes_col < static_cast<std::ptrdiff_t>(rows[0].size()));
  for (std::size_t r = 1; r < rows.size(); ++r) rows_bytes += std::stoull(rows[r][bytes_col]);
  CHECK(rows_bytes == copied);
  for (const auto& node : s["nodes"]) {
    const std::string id = node["id"];
    CHECK(node["bytes_before"] == fill_before[id]);
    CHECK(node["bytes_after"] == fill_after[id]);
  }
  CHECK_THAT(res.err, Catch::Contains(fmt::format("bytes copied {} (keys whose replica set changed: {} bytes)",
                                                  copied, set_changed)));

  // place --stats: each node's replica bytes, its disk fill in B.
  const auto placed = test::run_hrw({"place", "--cluster", b_json, "--keys", input, "--replicas", "3",
                                     "--distinct", "zone", "--out", dir.file("b.csv"), "--stats", dir.file("b.json.stats")});
  REQUIRE(placed.exit_code == 0);
  const auto stats = nlohmann::json::parse(test::read_file(dir.file("b.json.stats")));
  for (const auto& node : stats["nodes"]) CHECK(node["replica_bytes"] == fill_after[node["id"].get<std::string>()]);
  CHECK_THAT(placed.err, Catch::Contains("replica bytes"));
}
