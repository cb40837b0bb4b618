// transitions.csv and the self-contained plan folder (docs/plan.md, "Transitions", "The
// plan folder"): checked against the reference placement of both views, never against
// hrw's own summary. Per key exactly B∖A copies, one switch iff the owner changed, A∖B
// retires, in execution order; from.json and to.json place every key as A and B do.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/output.hpp"
#include "hrw/view_json.hpp"
#include "hrw/reference.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using hrw::test::holders;

namespace {

std::vector<std::string> plan_keys(std::size_t n, std::uint64_t seed) {
  std::vector<std::string> keys;
  for (auto& k : test::tricky_keys(n, seed, true))
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  return keys;
}

std::string keys_csv(const std::vector<std::string>& keys) {
  std::string text = "key,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) text += csv::quoted(keys[i]) + "," + std::to_string(100 + i % 37) + "\n";
  return text;
}

struct Row {
  std::uint64_t batch;
  std::string key, action, node, source;
};

std::vector<Row> read_transitions(const std::string& path) {
  auto rows = test::parse_csv_file(path);
  REQUIRE(!rows.empty());
  REQUIRE(rows[0] == std::vector<std::string>{"batch", "key", "action", "node", "source"});
  std::vector<Row> out;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i].size() == 5);
    out.push_back({std::stoull(rows[i][0]), rows[i][1], rows[i][2], rows[i][3], rows[i][4]});
  }
  return out;
}

// Every property of transitions.csv for a plan from `a` to `b` over `keys`, against the
// reference: the rows per key, their order per key and per batch, copies = moves.csv.
void check_transitions(const std::string& dir, const ClusterView& a, const ClusterView& b,
                       const std::vector<std::string>& keys, std::uint32_t r, const std::string& label) {
  const std::vector<Row> rows = read_transitions(dir + "/transitions.csv");
  // Copies are exactly moves.csv's rows, in the same order and batches.
  auto moves = test::parse_csv_file(dir + "/moves.csv");
  std::vector<std::vector<std::string>> copies;
  for (const Row& t : rows)
    if (t.action == "copy") copies.push_back({std::to_string(t.batch), t.key, t.source, t.node});
  REQUIRE(copies.size() + 1 == moves.size());
  for (std::size_t i = 0; i < copies.size(); ++i)
    CHECK(std::vector<std::string>(moves[i + 1].begin(), moves[i + 1].begin() + 4) == copies[i]);

  // Per batch: copies, then switches, then retires; batches never go back.
  auto rank_of = [](const std::string& action) { return action == "copy" ? 0 : action == "switch" ? 1 : 2; };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    REQUIRE(rows[i - 1].batch <= rows[i].batch);
    if (rows[i - 1].batch == rows[i].batch) CHECK(rank_of(rows[i - 1].action) <= rank_of(rows[i].action));
  }
  std::map<std::string, std::vector<std::size_t>> by_key;
  for (std::size_t i = 0; i < rows.size(); ++i) by_key[rows[i].key].push_back(i);

  nlohmann::json summary = nlohmann::json::parse(test::read_file(dir + "/summary.json"));
  std::uint64_t n_copy = 0, n_switch = 0, n_retire = 0;
  for (const std::string& key : keys) {
    const auto ha = holders(a, key, r, label);
    const auto hb = holders(b, key, r, label);
    std::vector<std::string> want_copies, want_retires;
    for (auto& n : hb)
      if (std::find(ha.begin(), ha.end(), n) == ha.end()) want_copies.push_back(n);
    for (auto& n : ha)
      if (std::find(hb.begin(), hb.end(), n) == hb.end()) want_retires.push_back(n);
    const bool owner_changed = ha.front() != hb.front();
    std::vector<std::string> got_copies, got_retires;
    std::vector<std::string> actions;
    std::uint64_t last_copy_batch = 0, tail_batch = 0;
    std::size_t switches = 0;
    for (std::size_t at : by_key[key]) {
      const Row& t = rows[at];
      actions.push_back(t.action);
      if (t.action == "copy") {
        got_copies.push_back(t.node);
        last_copy_batch = std::max(last_copy_batch, t.batch);
        // The source keeps its replica in B (or is A's owner when none does).
        CHECK(std::find(ha.begin(), ha.end(), t.source) != ha.end());
      } else if (t.action == "switch") {
        ++switches;
        CHECK(t.node == hb.front());
        CHECK(t.source == ha.front());
        tail_batch = t.batch;
      } else {
        REQUIRE(t.action == "retire");
        CHECK(t.source.empty());
        got_retires.push_back(t.node);
        if (tail_batch) CHECK(t.batch == tail_batch);
        tail_batch = t.batch;
      }
    }
    INFO("key " << key);
    std::sort(want_copies.begin(), want_copies.end());
    std::sort(got_copies.begin(), got_copies.end());
    CHECK(got_copies == want_copies);
    CHECK(got_retires == want_retires);  // in A's rank order
    CHECK(switches == (owner_changed ? 1u : 0u));
    // Per key: copies, then the switch, then the retires.
    CHECK(std::is_sorted(actions.begin(), actions.end(),
                         [&](const std::string& x, const std::string& y) { return rank_of(x) < rank_of(y); }));
    // The switch and retires come in the batch of the key's last copy.
    if (tail_batch && last_copy_batch) CHECK(tail_batch == last_copy_batch);
    n_copy += want_copies.size();
    n_switch += owner_changed;
    n_retire += want_retires.size();
  }
  CHECK(rows.size() == n_copy + n_switch + n_retire);
  CHECK(summary["transitions"]["copy"] == n_copy);
  CHECK(summary["transitions"]["switch"] == n_switch);
  CHECK(summary["transitions"]["retire"] == n_retire);
}

// A cluster file for a spec.
std::string write_view(const test::TempDir& dir, const std::string& name, const ClusterSpec& spec) {
  return dir.write(name, view_json(spec));
}

}  // namespace

TEST_CASE("plan --transitions: per key B∖A copies, a switch iff the owner changed, A∖B retires, in order",
          "[plan][transitions]") {
  test::TempDir dir;
  std::mt19937_64 rng(41);
  const std::vector<std::string> keys = plan_keys(600, 5);
  const std::string keys_file = dir.write("keys.csv", keys_csv(keys));
  int cases = 0;
  for (int round = 0; round < 4; ++round) {
    const ClusterSpec sa = test::make_spec(8, round % 2, round);
    const ClusterSpec sb = test::mutate(sa, rng, 1 + round % 3);
    const ClusterView a(sa), b(sb);
    const std::string fa = write_view(dir, "a.json", sa), fb = write_view(dir, "b.json", sb);
    for (std::uint32_t r : {1u, 2u, 3u}) {
      const std::string label = r > 1 && round % 2 ? "zone" : "";
      for (const std::vector<std::string>& limits :
           {std::vector<std::string>{"--batch-size", "7"}, {"--max-moves-per-node", "3"},
            {"--max-bytes-per-node", "500", "--max-moves-per-node", "4"}}) {
        const std::string out = dir.file("plan" + std::to_string(cases++));
        std::vector<std::string> args = {"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", out,
                                         "--transitions", "--quiet", "--replicas", std::to_string(r), "--partial"};
        if (!label.empty()) args.insert(args.end(), {"--distinct", label});
        args.insert(args.end(), limits.begin(), limits.end());
        const auto res = test::run_hrw(args);
        INFO("round " << round << " R " << r << " " << limits[0] << ": " << res.err);
        REQUIRE(res.exit_code == 0);
        check_transitions(out, a, b, keys, r, label);
      }
    }
  }
}

TEST_CASE("plan --transitions: an owner change with an unchanged replica set gets a switch row and nothing else",
          "[plan][transitions]") {
  // Reweighting inside the set reorders it: find keys whose set stays and owner changes.
  test::TempDir dir;
  ClusterSpec sa = test::make_spec(5, true, 1);
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes[0].weight = 4.0;
  sb.nodes[1].weight = 0.5;
  const ClusterView a(sa), b(sb);
  std::vector<std::string> keys;
  std::size_t switch_only = 0;
  for (int i = 0; i < 3000; ++i) {
    keys.push_back("u:" + std::to_string(i));
    auto ha = holders(a, keys.back(), 5, ""), hb = holders(b, keys.back(), 5, "");
    switch_only += ha.front() != hb.front();  // R = N: every set is all nodes
  }
  REQUIRE(switch_only > 0);
  const std::string fa = write_view(dir, "a.json", sa), fb = write_view(dir, "b.json", sb);
  const auto res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", dir.write("k.csv", keys_csv(keys)),
                                  "--replicas", "5", "--out", dir.file("p"), "--transitions", "--quiet"});
  REQUIRE(res.exit_code == 0);
  const auto rows = read_transitions(dir.file("p/transitions.csv"));
  CHECK(rows.size() == switch_only);
  for (const Row& t : rows) {
    CHECK(t.action == "switch");
    CHECK(t.batch == 1);  // no copies at all: batch 1
  }
  check_transitions(dir.file("p"), a, b, keys, 5, "");
}

TEST_CASE("a plan whose keys only retire or switch has one batch (round) for them, as transitions.csv says",
          "[plan][transitions]") {
  // A lost zone with partial: 3 replicas become 2, nothing is copied, every key retires one.
  test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "rule": {"replicas": 3, "distinct": "zone"}, "nodes": [
    {"id": "a1", "zone": "z1"}, {"id": "a2", "zone": "z1"}, {"id": "b1", "zone": "z2"},
    {"id": "b2", "zone": "z2"}, {"id": "c1", "zone": "z3"}, {"id": "c2", "zone": "z3"}]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "rule": {"replicas": 3, "distinct": "zone",
    "partial": true}, "nodes": [{"id": "a1", "zone": "z1"}, {"id": "a2", "zone": "z1"}, {"id": "b1", "zone": "z2"},
    {"id": "b2", "zone": "z2"}]})");
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back("k" + std::to_string(i));
  const std::string k = dir.write("k.csv", keys_csv(keys));
  for (const bool rounds : {false, true}) {
    INFO((rounds ? "rounds" : "batches"));
    std::vector<std::string> args = {"plan", "--from", a, "--to", b, "--keys", k, "--out", dir.file("p"),
                                     "--transitions", "--quiet"};
    if (rounds) args.insert(args.end(), {"--max-moves-per-node", "10"});
    REQUIRE(test::run_hrw(args).exit_code == 0);
    const auto summary = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
    CHECK(summary["rows"] == 0);
    CHECK(summary["moved"] == keys.size());
    CHECK(summary["batches"] == 1);
    if (rounds) {
      CHECK(summary["schedule"]["rounds"] == 1);
      CHECK(summary["schedule"]["per_round"].size() == 1);
    }
    // Each key retires its z3 replica, and switches first when that was its owner.
    std::size_t retires = 0;
    for (const Row& t : read_transitions(dir.file("p/transitions.csv"))) {
      CHECK((t.action == "retire" || t.action == "switch"));
      retires += t.action == "retire";
      CHECK(t.batch == 1);
    }
    CHECK(retires == keys.size());
  }
  // The summary with nothing to change still says 0.
  REQUIRE(test::run_hrw({"plan", "--from", b, "--to", b, "--keys", k, "--out", dir.file("same"), "--quiet"}).exit_code == 0);
  CHECK(nlohmann::json::parse(test::read_file(dir.file("same/summary.json")))["batches"] == 0);
}

TEST_CASE("plan --from-placement --transitions and staged steps write transitions per plan folder",
          "[plan][transitions]") {
  test::TempDir dir;
  std::mt19937_64 rng(9);
  const std::vector<std::string> keys = plan_keys(500, 8);
  const ClusterSpec sa = test::make_spec(6, false, 1);
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes.push_back({"node-new", std::nullopt, {{"zone", "z1"}}});
  const ClusterView a(sa), b(sb);
  const std::string fa = write_view(dir, "a.json", sa), fb = write_view(dir, "b.json", sb);
  const std::string keys_file = dir.write("keys.csv", keys_csv(keys));

  // From A's placement as a file: the same transitions as from A.
  std::string current = "key,replica_1,replica_2,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    auto h = holders(a, keys[i], 2, "");
    current += csv::quoted(keys[i]) + "," + h[0] + "," + h[1] + "," + std::to_string(100 + i % 37) + "\n";
  }
  const std::string cur = dir.write("current.csv", current);
  auto res = test::run_hrw({"plan", "--from-placement", cur, "--to", fb, "--out", dir.file("fp"),
                            "--transitions", "--quiet", "--max-moves-per-node", "5"});
  REQUIRE(res.exit_code == 0);
  check_transitions(dir.file("fp"), a, b, keys, 2, "");
  CHECK_FALSE(std::filesystem::exists(dir.file("fp/from.json")));  // the placement is named instead
  CHECK(nlohmann::json::parse(test::read_file(dir.file("fp/summary.json")))["from_placement"] == cur);
  CHECK(ClusterView(load_cluster_file(dir.file("fp/to.json"))).version() == 2);

  // Staged: each step folder is a plan folder of its own.
  res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", dir.file("st"),
                       "--max-moved-fraction", "0.05", "--transitions", "--quiet", "--step-versions", "1000"});
  REQUIRE(res.exit_code == 0);
  const auto steps = test::names(dir.file("st/steps"));
  REQUIRE(steps.size() >= 2);
  for (const std::string& s : steps) {
    const std::string step = dir.file("st/steps/" + s);
    const ClusterView from(load_cluster_file(step + "/from.json")), to(load_cluster_file(step + "/to.json"));
    const ClusterView view(load_cluster_file(step + "/view.json"));
    CHECK(to.version() == view.version());
    for (const std::string& k : keys) CHECK(to.node(reference::owner(to, k)).id == view.node(reference::owner(view, k)).id);
    check_transitions(step, from, to, keys, 1, "");
  }
}

TEST_CASE("plan folder: from.json and to.json are the views used, hierarchy and --hierarchy included",
          "[plan][transitions]") {
  test::TempDir dir;
  std::mt19937_64 rng(3);
  ClusterSpec sa = test::make_spec(9, true, 4);
  for (std::size_t i = 0; i < sa.nodes.size(); ++i) sa.nodes[i].labels.emplace_back("rack", "r" + std::to_string(i % 2));
  sa.seed = "s\"eed";
  sa.hash = HashMode::fnv1a;
  ClusterSpec sb = sa;
  sb.version = 5;
  sb.nodes[2].weight = 7.5;
  sb.nodes.erase(sb.nodes.begin() + 4);
  const std::vector<std::string> keys = plan_keys(400, 2);
  const std::string keys_file = dir.write("keys.csv", keys_csv(keys));
  const std::string fa = write_view(dir, "a.json", sa), fb = write_view(dir, "b.json", sb);
  for (bool hierarchical : {false, true}) {
    const std::string out = dir.file(hierarchical ? "h" : "flat");
    std::vector<std::string> args = {"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", out, "--quiet"};
    if (hierarchical) args.insert(args.end(), {"--hierarchy", "zone,rack"});
    const auto res = test::run_hrw(args);
    REQUIRE(res.exit_code == 0);
    ClusterSpec ha = sa, hb = sb;
    if (hierarchical) ha.hierarchy = hb.hierarchy = std::vector<std::string>{"zone", "rack"};
    const ClusterView a(ha), b(hb);
    const ClusterView a2(load_cluster_file(out + "/from.json")), b2(load_cluster_file(out + "/to.json"));
    CHECK(a2.version() == 4);
    CHECK(b2.version() == 5);
    CHECK(a2.seed() == sa.seed);
    CHECK(b2.hash() == HashMode::fnv1a);
    CHECK((a2.hierarchy() != nullptr) == hierarchical);
    for (const std::string& k : keys) {
      CHECK(a2.node(reference::owner(a2, k)).id == a.node(reference::owner(a, k)).id);
      CHECK(b2.node(reference::owner(b2, k)).id == b.node(reference::owner(b, k)).id);
    }
  }
}
