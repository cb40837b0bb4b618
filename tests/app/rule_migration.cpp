// Plans between views whose rules differ: a migration of the rule itself (contract §8,
// docs/plan.md "Migrating the rule"). Each view places by its own rule; every output is
// checked key by key against the scalar reference of both views (never against hrw's own
// summary): moves.csv = B∖A, transitions.csv (copies B∖A, a switch iff the owner changes,
// retires A∖B), the summary's rules and §8 slot ideal against the formula computed here,
// check --plan after executing rounds 1..r, and undo to from.json.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/view_json.hpp"
#include "hrw/reference.hpp"
#include "plan_execution.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using hrw::test::execute;
using hrw::test::holders;
using hrw::test::Holders;
using hrw::test::placement_csv;
using Catch::Matchers::Contains;

namespace {

// `nodes` nodes n0.. in zones z0..z2.
ClusterSpec zoned(std::int64_t version, int nodes, PlacementRule rule) {
  ClusterSpec s;
  s.version = version;
  s.rule = std::move(rule);
  for (int i = 0; i < nodes; ++i) {
    NodeSpec n{fmt::format("n{}", i), std::nullopt, {}};
    n.labels.emplace_back("zone", fmt::format("z{}", i % 3));
    s.nodes.push_back(std::move(n));
  }
  return s;
}

Holders placed(const ClusterView& v, const std::vector<std::string>& keys) {
  Holders out;
  for (const std::string& k : keys) out[k] = holders(v, k, v.rule()->replicas, v.rule()->distinct);
  return out;
}

std::set<std::string> set_of(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }


std::map<std::string, std::uint64_t> key_rounds(const std::string& transitions) {
  std::map<std::string, std::uint64_t> out;
  auto rows = test::parse_csv_file(transitions);
  for (std::size_t i = 1; i < rows.size(); ++i)
    out[rows[i][1]] = std::max<std::uint64_t>(out[rows[i][1]], std::stoull(rows[i][0]));
  return out;
}

nlohmann::json rule_json(const PlacementRule& r) {
  return {{"replicas", r.replicas},
          {"distinct", r.distinct.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.distinct)},
          {"partial", r.partial}};
}

struct Migration {
  const char* name;
  ClusterSpec a, b;
};

std::vector<Migration> migrations() {
  return {
      {"replicas 2 -> 3, distinct zone", zoned(1, 9, {2, "zone", false}), zoned(2, 9, {3, "zone", false})},
      {"replicas 2 -> 3 and a node added", zoned(1, 9, {2, "", false}), zoned(2, 10, {3, "", false})},
      {"distinct none -> zone", zoned(1, 9, {2, "", false}), zoned(2, 9, {2, "zone", false})},
      {"replicas 3 -> 2, distinct zone", zoned(1, 9, {3, "zone", false}), zoned(2, 9, {2, "zone", false})},
      {"replicas 1 -> 2", zoned(1, 6, {1, "", false}), zoned(2, 6, {2, "zone", false})},
  };
}

std::string key_lines_for_compare() {
  std::string text;
  for (int i = 0; i < 3000; ++i) text += "user:" + std::to_string(i) + "\n";
  return text;
}

}  // namespace

TEST_CASE("plan between two rules: each view by its own rule, key by key against the reference",
          "[plan][rule][migration]") {
  test::TempDir dir;
  std::vector<std::string> keys;
  for (int i = 0; i < 1500; ++i) keys.push_back("user:" + std::to_string(i));
  std::string keys_text = "key,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) keys_text += keys[i] + "," + std::to_string(500 + i % 77) + "\n";
  const std::string keys_file = dir.write("keys.csv", keys_text);
  std::mt19937_64 rng(8);
  int n = 0;
  for (const Migration& m : migrations()) {
    INFO(m.name);
    const ClusterView a(m.a), b(m.b);
    const std::uint32_t ra = m.a.rule->replicas, rb = m.b.rule->replicas, rmax = std::max(ra, rb);
    const std::string fa = dir.write("a.json", view_json(m.a)), fb = dir.write("b.json", view_json(m.b));
    const std::string plan = dir.file("plan" + std::to_string(n++));
    auto res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", plan, "--transitions",
                              "--max-moves-per-node", "20", "--node-bandwidth", "1000000"});
    INFO(res.err);
    REQUIRE(res.exit_code == 0);
    CHECK_THAT(res.err, Contains(fmt::format("rule ({}) -> ({})", describe(*m.a.rule), describe(*m.b.rule))));
    const Holders in_a = placed(a, keys), in_b = placed(b, keys);

    // moves.csv: exactly B∖A per key, each from a node of A's set.
    std::map<std::string, std::set<std::string>> copied;
    const auto moves = test::parse_csv_file(plan + "/moves.csv");
    for (std::size_t i = 1; i < moves.size(); ++i) {
      const auto& row = moves[i];
      CHECK(set_of(in_a.at(row[1])).count(row[2]));
      CHECK(copied[row[1]].insert(row[3]).second);
    }
    std::uint64_t slot_moves = 0, owner_changes = 0, set_changed = 0, retires = 0;
    std::map<std::string, std::int64_t> slots_a, slots_b;
    for (const std::string& k : keys) {
      const auto sa = set_of(in_a.at(k)), sb = set_of(in_b.at(k));
      std::set<std::string> want;
      for (auto& id : sb)
        if (!sa.count(id)) want.insert(id);
      for (auto& id : sa) retires += !sb.count(id);
      CHECK((copied.count(k) ? copied.at(k) : std::set<std::string>{}) == want);
      slot_moves += want.size();
      owner_changes += in_a.at(k).front() != in_b.at(k).front();
      set_changed += sa != sb;
      for (auto& id : sa) ++slots_a[id];
      for (auto& id : sb) ++slots_b[id];
    }

    // transitions.csv: per key its copies (B∖A), then a switch iff the owner changed, then
    // its retires (A∖B); per round copies, switches, retires.
    const auto rows = test::parse_csv_file(plan + "/transitions.csv");
    std::map<std::string, std::vector<std::vector<std::string>>> by_key;
    auto rank_of = [](const std::string& action) { return action == "copy" ? 0 : action == "switch" ? 1 : 2; };
    for (std::size_t i = 1; i < rows.size(); ++i) {
      by_key[rows[i][1]].push_back(rows[i]);
      if (i > 1 && rows[i - 1][0] == rows[i][0]) CHECK(rank_of(rows[i - 1][2]) <= rank_of(rows[i][2]));
    }
    for (const std::string& k : keys) {
      std::set<std::string> got_copies, got_retires;
      int switches = 0, last = -1;
      for (const auto& row : by_key[k]) {
        CHECK(rank_of(row[2]) >= last);
        last = rank_of(row[2]);
        if (row[2] == "copy") got_copies.insert(row[3]);
        if (row[2] == "retire") got_retires.insert(row[3]);
        if (row[2] == "switch") {
          ++switches;
          CHECK(row[3] == in_b.at(k).front());
          CHECK(row[4] == in_a.at(k).front());
        }
      }
      std::set<std::string> want_retires;
      for (auto& id : in_a.at(k))
        if (!set_of(in_b.at(k)).count(id)) want_retires.insert(id);
      CHECK(got_copies == (copied.count(k) ? copied.at(k) : std::set<std::string>{}));
      CHECK(got_retires == want_retires);
      CHECK(switches == (in_a.at(k).front() != in_b.at(k).front() ? 1 : 0));
    }

    // summary.json: both rules, counts from the reference, the §8 slot ideal by its formula.
    const auto s = nlohmann::json::parse(test::read_file(plan + "/summary.json"));
    CHECK(s["from_rule"] == rule_json(*m.a.rule));
    CHECK(s["to_rule"] == rule_json(*m.b.rule));
    CHECK(s["keys"] == keys.size());
    CHECK(s["transitions"]["copy"] == slot_moves);
    CHECK(s["transitions"]["switch"] == owner_changes);
    CHECK(s["transitions"]["retire"] == retires);
    if (ra == 1 && rb == 1) continue;
    CHECK(s["replicas"] == rb);
    if (ra != rb) CHECK(s["from_replicas"] == ra);
    CHECK(s["slot_moves"] == slot_moves);
    CHECK(s["owner_changes"] == owner_changes);
    CHECK(s["set_changed"] == set_changed);
    double ideal = 0;
    std::set<std::string> ids;
    for (auto& [id, c] : slots_a) ids.insert(id);
    for (auto& [id, c] : slots_b) ids.insert(id);
    for (const std::string& id : ids) {
      const std::int64_t d = slots_b[id] - slots_a[id];
      ideal += ra != rb ? static_cast<double>(std::max<std::int64_t>(0, d)) : 0.5 * static_cast<double>(std::abs(d));
    }
    ideal /= static_cast<double>(rb) * static_cast<double>(keys.size());
    CHECK(s["slot_ideal_fraction"].get<double>() == Approx(ideal).epsilon(1e-12));
    CHECK(s["slot_moves_fraction"].get<double>() ==
          Approx(static_cast<double>(slot_moves) / (rb * static_cast<double>(keys.size()))).epsilon(1e-12));
    REQUIRE(s.contains("estimated_seconds"));

    // The operator's loop: execute rounds 1..r, check --plan, perturb, undo.
    const std::uint64_t rounds = s["batches"].get<std::uint64_t>();
    if (slot_moves > 0) REQUIRE(rounds >= 2);  // a shrink (3 -> 2) copies nothing: its retires need no round
    const auto round = key_rounds(plan + "/transitions.csv");
    for (const std::uint64_t through : {std::uint64_t{0}, rounds / 2, rounds}) {
      INFO("through round " << through);
      auto done = [&](const std::string& k) { return round.count(k) && round.at(k) <= through; };
      Holders now = in_a;
      const std::set<std::string> touched = execute(plan + "/transitions.csv", through, now);
      for (const std::string& k : keys) {
        if (done(k)) CHECK((set_of(now.at(k)) == set_of(in_b.at(k)) && now.at(k).front() == in_b.at(k).front()));
        else now[k] = in_a.at(k);  // a key whose round has not finished serves from A's set
      }
      const std::string current = dir.write("current.csv", placement_csv(keys, now, rmax));
      res = test::run_hrw({"check", "--plan", plan, "--through-round", std::to_string(through), "--placement",
                           current, "--misplaced", dir.file("mis.csv"), "--quiet"});
      INFO(res.err);
      CHECK(res.exit_code == 0);
      CHECK(test::parse_csv_file(dir.file("mis.csv")).size() == 1);
      Holders bad = now;
      const std::string& victim = keys[rng() % keys.size()];
      bad[victim].front() = "elsewhere";
      res = test::run_hrw({"check", "--plan", plan, "--through-round", std::to_string(through), "--placement",
                           dir.write("bad.csv", placement_csv(keys, bad, rmax)), "--misplaced", dir.file("mis.csv"),
                           "--quiet"});
      CHECK(res.exit_code == 3);
      const auto mis = test::parse_csv_file(dir.file("mis.csv"));
      REQUIRE(mis.size() == 2);
      CHECK(mis[1][0] == victim);
      const auto& want = done(victim) ? in_b.at(victim) : in_a.at(victim);
      for (std::uint32_t j = 0; j < rmax; ++j) CHECK(mis[1][1 + j] == (j < want.size() ? want[j] : ""));

      // Undo to from.json: a plan from a placement of rmax columns back to A's rule.
      const std::string undo = dir.file("undo" + std::to_string(n) + "-" + std::to_string(through));
      res = test::run_hrw({"plan", "--from-placement", current, "--to", plan + "/from.json", "--out", undo,
                           "--transitions", "--quiet"});
      INFO(res.err);
      REQUIRE(res.exit_code == 0);
      Holders rolled = now;
      const std::set<std::string> undone = execute(undo + "/transitions.csv", ~std::uint64_t{0}, rolled);
      for (const std::string& k : undone) CHECK(touched.count(k));  // only keys of rounds 1..r moved
      for (const std::string& k : keys)
        CHECK((set_of(rolled.at(k)) == set_of(in_a.at(k)) && rolled.at(k).front() == in_a.at(k).front()));
      const auto u = nlohmann::json::parse(test::read_file(undo + "/summary.json"));
      CHECK(u["to_rule"] == rule_json(*m.a.rule));
      // Check agrees with the undo: the rolled-back placement (rmax columns, A's rule) is
      // where from.json puts every key, and where the undo plan expects it after its rounds.
      const std::string rolled_file = dir.write("rolled.csv", placement_csv(keys, rolled, rmax));
      res = test::run_hrw({"check", "--cluster", plan + "/from.json", "--placement", rolled_file});
      INFO(res.out << res.err);
      CHECK(res.exit_code == 0);
      res = test::run_hrw({"check", "--plan", undo, "--through-round", std::to_string(u["batches"].get<std::uint64_t>()),
                           "--placement", rolled_file});
      INFO(res.out << res.err);
      CHECK(res.exit_code == 0);
      res = test::run_hrw({"check", "--plan", undo, "--through-round", "0", "--placement", current});
      INFO(res.out << res.err);
      CHECK(res.exit_code == 0);
    }
  }
}

TEST_CASE("plan between two rules: a staged plan is refused in one line saying why", "[plan][rule][migration]") {
  test::TempDir dir;
  const std::string fa = dir.write("a.json", view_json(zoned(1, 9, {2, "zone", false})));
  const std::string fb = dir.write("b.json", view_json(zoned(2, 10, {3, "zone", false})));
  const std::string keys = dir.write("k.txt", "user:1\nuser:2\n");
  const auto res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys, "--max-moved-fraction", "0.1",
                                  "--out", dir.file("p")});
  CHECK(res.exit_code == 2);
  CHECK(res.err == fmt::format("hrw: a staged plan needs two views that differ only in nodes and weights: {} and {} "
                               "differ in rule (a rule change cannot be split into capped steps: plan it alone "
                               "first, then stage the node change)\n",
                               fa, fb));
}

TEST_CASE("plan between two rules: a flag that contradicts either view's rule is refused", "[plan][rule][migration]") {
  test::TempDir dir;
  const std::string fa = dir.write("a.json", view_json(zoned(1, 9, {2, "zone", false})));
  const std::string fb = dir.write("b.json", view_json(zoned(2, 9, {3, "zone", false})));
  const std::string keys = dir.write("k.txt", "user:1\nuser:2\n");
  const auto res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys, "--replicas", "3", "--out",
                                  dir.file("p")});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains(fa) && Contains("replicas 2"));
}

TEST_CASE("compare honours a rule that places owners and refuses any other in one line", "[compare][rule]") {
  test::TempDir dir;
  const std::string keys = dir.write("k.txt", key_lines_for_compare());
  const std::string plain_a = dir.write("pa.json", view_json(zoned(1, 6, {1, "", false}))),
                    plain_b = dir.write("pb.json", view_json(zoned(2, 7, {1, "", false})));
  ClusterSpec bare_a = zoned(1, 6, {}), bare_b = zoned(2, 7, {});
  bare_a.rule.reset();
  bare_b.rule.reset();
  const std::string fa = dir.write("a.json", view_json(bare_a)), fb = dir.write("b.json", view_json(bare_b));
  auto moved = [&](const std::string& a, const std::string& b) {
    const auto res = test::run_hrw({"compare", "--keys", keys, "--from-cluster", a, "--to-cluster", b, "--format", "csv"});
    INFO(res.err);
    REQUIRE(res.exit_code == 0);
    // Every column but the timing one (ns/key) is a function of the views and keys.
    std::string text;
    for (const auto& row : test::parse_csv_file(dir.write("out.csv", res.out))) {
      for (std::size_t i = 0; i < row.size(); ++i)
        if (i != 9) text += row[i] + ",";  // 9: ns_per_key
      text += "\n";
    }
    return text;
  };
  CHECK(moved(plain_a, plain_b) == moved(fa, fb));
  const std::string ruled = dir.write("r.json", view_json(zoned(2, 7, {3, "zone", false})));
  const auto res = test::run_hrw({"compare", "--keys", keys, "--from-cluster", fa, "--to-cluster", ruled});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + ruled +
                       ": compare measures owners (R = 1) for every scheme, and this view places by its rule "
                       "(replicas 3, distinct \"zone\", not partial); compare a copy without the rule, or plan it "
                       "with hrw plan\n");
}

TEST_CASE("README's operator loop: view edit -> plan (rounds, time) -> execute round by round -> check -> undo",
          "[plan][view][readme]") {
  // The README's commands ("Executing a migration"), on 3000 keys with limits scaled down so
  // that the plan has several rounds.
  test::TempDir dir;
  std::string nodes;
  for (int i = 0; i < 10; ++i) nodes += fmt::format("{}{{\"id\": \"node-{:02}\"}}", i ? ", " : "", i);
  const std::string a = dir.write("a.json", "{\"version\": 1, \"nodes\": [" + nodes + "]}");
  const std::string b = dir.file("b.json");
  auto res = test::run_hrw({"view", "edit", a, "--add", "node-10", "--add", "node-11", "--out", b});
  REQUIRE(res.exit_code == 0);
  std::string nodes12 = nodes + ", {\"id\": \"node-10\"}, {\"id\": \"node-11\"}";
  CHECK(view_json(ClusterView(load_cluster_file(b))) ==
        view_json(ClusterView(parse_cluster_json("{\"version\": 2, \"nodes\": [" + nodes12 + "]}", "x"))));
  CHECK(test::run_hrw({"view", "show", b}).exit_code == 0);
  std::vector<std::string> keys;
  std::string text = "key,bytes\n";
  for (int i = 0; i < 3000; ++i) {
    keys.push_back("user:" + std::to_string(i));
    text += keys.back() + "," + std::to_string(20000 + (i * 7919) % 50000) + "\n";
  }
  const std::string k = dir.write("keys.csv", text);
  const std::string plan = dir.file("plan");
  res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", k, "--max-moves-per-node", "20", "--max-bytes-per-node",
                       "2000000", "--node-bandwidth", "100000000", "--transitions", "--out", plan});
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.err, Contains("estimated time"));
  const auto s = nlohmann::json::parse(test::read_file(plan + "/summary.json"));
  const std::uint64_t rounds = s["batches"].get<std::uint64_t>();
  REQUIRE(rounds >= 3);
  const ClusterView va(load_cluster_file(a)), vb(load_cluster_file(b));
  Holders in_a, in_b;
  for (const std::string& key : keys) in_a[key] = holders(va, key, 1, ""), in_b[key] = holders(vb, key, 1, "");
  Holders now = in_a;
  for (std::uint64_t n = 1; n <= 3; ++n) {  // execute round by round, check after each
    INFO("round " << n);
    Holders after = in_a;
    execute(plan + "/transitions.csv", n, after);
    const std::string current = dir.write("current.csv", placement_csv(keys, after, 1));
    res = test::run_hrw({"check", "--plan", plan, "--through-round", std::to_string(n), "--placement", current,
                         "--misplaced", dir.file("bad.csv")});
    CHECK(res.exit_code == 0);
    now = after;
  }
  res = test::run_hrw({"plan", "--from-placement", dir.file("current.csv"), "--to", plan + "/from.json", "--out",
                       dir.file("undo"), "--transitions"});
  REQUIRE(res.exit_code == 0);
  execute(dir.file("undo/transitions.csv"), ~std::uint64_t{0}, now);
  for (const std::string& key : keys) CHECK(now.at(key) == in_a.at(key));  // every key back where A puts it
}

TEST_CASE("check --cluster by a view's rule: more replica columns than R (left empty) pass, fewer are refused",
          "[check][rule]") {
  test::TempDir dir;
  const std::string view = dir.write(
      "v.json", R"({"version": 1, "rule": {"replicas": 2, "distinct": "zone"}, "nodes": [{"id": "a", "zone": "z1"},
                   {"id": "b", "zone": "z2"}, {"id": "c", "zone": "z3"}]})");
  const std::string keys = dir.write("k.txt", "k1\nk2\nk3\nk4\n");
  REQUIRE(test::run_hrw({"place", "--cluster", view, "--keys", keys, "--out", dir.file("p.csv")}).exit_code == 0);
  const auto rows = test::parse_csv_file(dir.file("p.csv"));
  std::string three = "key,replica_1,replica_2,replica_3\n", one = "key,owner\n";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    three += rows[i][0] + "," + rows[i][1] + "," + rows[i][2] + ",\n";
    one += rows[i][0] + "," + rows[i][1] + "\n";
  }
  auto res = test::run_hrw({"check", "--cluster", view, "--placement", dir.write("three.csv", three)});
  INFO(res.err);
  CHECK(res.exit_code == 0);
  res = test::run_hrw({"check", "--cluster", view, "--placement", dir.write("one.csv", one)});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + dir.file("one.csv") + ": 1 replica column(s), but the rule of " + view + " places 2 replicas\n");
}
