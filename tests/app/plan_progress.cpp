// The operator's loop (docs/plan.md, "Checking progress and undoing"): execute rounds 1..r
// of a plan on a placement file (simulated from transitions.csv), check it with
// `hrw check --plan DIR --through-round r`, perturb it and find exactly the perturbed keys,
// and roll back with `hrw plan --from-placement CURRENT --to DIR/from.json`: every key is
// then where A's reference puts it, and only the keys of rounds 1..r moved.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/output.hpp"
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

namespace {

Holders placed(const ClusterView& v, const std::vector<std::string>& keys, std::uint32_t r,
               const std::string& label) {
  Holders out;
  for (const std::string& k : keys) out[k] = holders(v, k, r, label);
  return out;
}


std::set<std::string> set_of(const std::vector<std::string>& v) { return {v.begin(), v.end()}; }

// Each key's round: the largest batch among its rows.
std::map<std::string, std::uint64_t> key_rounds(const std::string& transitions) {
  std::map<std::string, std::uint64_t> out;
  auto rows = test::parse_csv_file(transitions);
  for (std::size_t i = 1; i < rows.size(); ++i) out[rows[i][1]] = std::max<std::uint64_t>(out[rows[i][1]], std::stoull(rows[i][0]));
  return out;
}

std::uint64_t rounds_of(const std::string& dir) {
  return nlohmann::json::parse(test::read_file(dir + "/summary.json"))["batches"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("check --plan --through-round after executing rounds 1..r, perturbed keys exactly, undo",
          "[plan][progress]") {
  test::TempDir dir;
  std::mt19937_64 rng(77);
  std::vector<std::string> keys;
  for (int i = 0; i < 800; ++i) keys.push_back("user:" + std::to_string(i));
  std::string keys_text = "key,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) keys_text += keys[i] + "," + std::to_string(1000 + i % 91) + "\n";
  const std::string keys_file = dir.write("keys.csv", keys_text);
  int n = 0;
  for (int change = 0; change < 3; ++change) {
    const ClusterSpec sa = test::make_spec(7, change == 1, 1);
    const ClusterSpec sb = test::mutate(sa, rng, 2 + change);
    const ClusterView a(sa), b(sb);
    const std::string fa = dir.write("a.json", view_json(sa)), fb = dir.write("b.json", view_json(sb));
    for (std::uint32_t r : {1u, 3u}) {
      const std::string label = r > 1 && change == 2 ? "zone" : "";
      const std::string plan = dir.file("plan" + std::to_string(n));
      std::vector<std::string> args = {"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", plan,
                                       "--transitions", "--quiet", "--replicas", std::to_string(r),
                                       "--max-moves-per-node", "6", "--partial"};
      std::vector<std::string> opts;
      if (!label.empty()) opts = {"--distinct", label};
      args.insert(args.end(), opts.begin(), opts.end());
      auto res = test::run_hrw(args);
      REQUIRE(res.exit_code == 0);
      const std::uint64_t rounds = rounds_of(plan);
      REQUIRE(rounds >= 3);
      const Holders in_a = placed(a, keys, r, label), in_b = placed(b, keys, r, label);
      for (const std::uint64_t through : {std::uint64_t{0}, std::uint64_t{1}, rounds / 2, rounds}) {
        INFO("change " << change << " R " << r << " through " << through);
        Holders now = in_a;
        const std::set<std::string> touched = execute(plan + "/transitions.csv", through, now);
        const auto round = key_rounds(plan + "/transitions.csv");
        auto done = [&](const std::string& k) { return round.count(k) && round.at(k) <= through; };
        // Every key is at B's set once its round ran; before, A's (the reference) plus the
        // copies its earlier rounds made.
        for (const std::string& k : keys) {
          if (done(k)) {
            CHECK(set_of(now.at(k)) == set_of(in_b.at(k)));
          } else {
            std::set<std::string> a_and_b = set_of(in_a.at(k));
            for (auto& id : in_b.at(k)) a_and_b.insert(id);
            const auto have = set_of(now.at(k));
            const auto a_set = set_of(in_a.at(k));
            CHECK(std::includes(have.begin(), have.end(), a_set.begin(), a_set.end()));
            CHECK(std::includes(a_and_b.begin(), a_and_b.end(), have.begin(), have.end()));
          }
        }
        // CURRENT.csv holds each key's serving holders: a key whose copies began but whose
        // round has not finished (its switch and retires to come) still serves from A's.
        Holders serving = now;
        for (const std::string& k : keys)
          if (!done(k)) serving[k] = in_a.at(k);
        now = serving;
        const std::string current = dir.write("current" + std::to_string(n) + ".csv", placement_csv(keys, now, r));
        std::vector<std::string> check = {"check", "--plan", plan, "--through-round", std::to_string(through),
                                          "--placement", current, "--misplaced", dir.file("mis.csv")};
        check.insert(check.end(), opts.begin(), opts.end());
        if (r > 1) check.push_back("--partial");
        res = test::run_hrw(check);
        INFO(res.out << res.err);
        CHECK(res.exit_code == 0);
        CHECK(test::parse_csv_file(dir.file("mis.csv")).size() == 1);  // the header only

        // Perturbed keys: exactly those are reported, with what was expected and what is.
        Holders bad = now;
        std::map<std::string, std::vector<std::string>> perturbed;
        for (int p = 0; p < 5; ++p) {
          const std::string& k = keys[rng() % keys.size()];
          bad[k][rng() % bad[k].size()] = "elsewhere-" + std::to_string(p);
          perturbed[k] = bad[k];
        }
        const std::string wrong = dir.write("wrong.csv", placement_csv(keys, bad, r));
        check[6] = wrong;
        res = test::run_hrw(check);
        CHECK(res.exit_code == 3);
        const auto mis = test::parse_csv_file(dir.file("mis.csv"));
        REQUIRE(mis.size() == perturbed.size() + 1);
        for (std::size_t i = 1; i < mis.size(); ++i) {
          REQUIRE(mis[i].size() == 1 + 2 * r);
          const std::string& k = mis[i][0];
          REQUIRE(perturbed.count(k));
          const auto& expected_ids = done(k) ? in_b.at(k) : in_a.at(k);
          for (std::uint32_t j = 0; j < r; ++j) {
            CHECK(mis[i][1 + j] == (j < expected_ids.size() ? expected_ids[j] : ""));
            CHECK(mis[i][1 + r + j] == (j < perturbed[k].size() ? perturbed[k][j] : ""));
          }
        }

        // Undo: a plan from where the keys are to from.json moves exactly the keys of rounds
        // 1..r whose set changed, and executing it puts every key where A puts it.
        const std::string undo = dir.file("undo" + std::to_string(n) + "-" + std::to_string(through));
        std::vector<std::string> back = {"plan", "--from-placement", current, "--to", plan + "/from.json",
                                         "--out", undo, "--transitions", "--quiet"};
        back.insert(back.end(), opts.begin(), opts.end());
        if (r > 1) back.push_back("--partial");
        res = test::run_hrw(back);
        INFO(res.err);
        REQUIRE(res.exit_code == 0);
        std::set<std::string> moved_back;
        for (auto& row : test::parse_csv_file(undo + "/moves.csv")) moved_back.insert(row[1]);
        moved_back.erase("key");
        std::set<std::string> want;
        for (const std::string& k : keys)  // undo copies the nodes of A's set the key lost
          for (const std::string& id : in_a.at(k))
            if (!set_of(now.at(k)).count(id)) want.insert(k);
        for (const std::string& k : want) CHECK(done(k));  // only keys whose round ran
        CHECK(moved_back == want);
        Holders rolled = now;
        const std::set<std::string> undone = execute(undo + "/transitions.csv", ~std::uint64_t{0}, rolled);
        for (const std::string& k : undone) CHECK(touched.count(k));  // only keys of rounds 1..r moved
        for (const std::string& k : keys) {
          CHECK(set_of(rolled.at(k)) == set_of(in_a.at(k)));
          CHECK(rolled.at(k).front() == in_a.at(k).front());
        }
        const std::string rolled_file = dir.write("rolled.csv", placement_csv(keys, rolled, r));
        std::vector<std::string> verify = {"check", "--cluster", plan + "/from.json", "--placement", rolled_file,
                                           "--quiet"};
        verify.insert(verify.end(), opts.begin(), opts.end());
        if (r > 1) verify.push_back("--partial");
        CHECK(test::run_hrw(verify).exit_code == 0);

        // The undo is a plan from a placement file (no from.json): check --plan takes A's
        // holders from its rows. Before any round: the placement it was made from; after
        // every round: the rolled-back one; a perturbed key is found either way.
        const std::uint64_t undo_rounds = nlohmann::json::parse(test::read_file(undo + "/summary.json"))["batches"];
        for (const auto& [through_undo, file] : {std::pair{std::uint64_t{0}, current}, std::pair{undo_rounds, rolled_file}}) {
          std::vector<std::string> check_undo = {"check", "--plan", undo, "--through-round", std::to_string(through_undo),
                                                 "--placement", file, "--format", "json"};
          check_undo.insert(check_undo.end(), opts.begin(), opts.end());
          if (r > 1) check_undo.push_back("--partial");
          res = test::run_hrw(check_undo);
          INFO(res.err);
          CHECK(res.exit_code == 0);
          if (res.exit_code == 0) CHECK(nlohmann::json::parse(res.out)["from_placement"] == current);
        }
        {
          Holders moved_one = rolled;
          const std::string& k = keys[rng() % keys.size()];
          moved_one[k][0] = "elsewhere";
          std::vector<std::string> check_undo = {"check", "--plan", undo, "--through-round", std::to_string(undo_rounds),
                                                 "--placement", dir.write("off.csv", placement_csv(keys, moved_one, r)),
                                                 "--misplaced", dir.file("mis.csv")};
          check_undo.insert(check_undo.end(), opts.begin(), opts.end());
          if (r > 1) check_undo.push_back("--partial");
          CHECK(test::run_hrw(check_undo).exit_code == 3);
          const auto mis = test::parse_csv_file(dir.file("mis.csv"));
          REQUIRE(mis.size() == 2);
          CHECK(mis[1][0] == k);
        }
        if (r == 1) {
          // R = 1 needs no transitions.csv: moves.csv's rows give each key's round and the
          // node it leaves. Rounds 1..k of the undo executed by hand from moves.csv.
          const std::string plain_undo = undo + "-moves";
          std::vector<std::string> args2 = {"plan", "--from-placement", current, "--to", plan + "/from.json",
                                            "--out", plain_undo, "--quiet", "--max-moves-per-node", "2"};
          REQUIRE(test::run_hrw(args2).exit_code == 0);
          const auto moves = test::parse_csv_file(plain_undo + "/moves.csv");
          const std::uint64_t last = rounds_of(plain_undo);
          for (const std::uint64_t k : {std::uint64_t{0}, last / 2, last}) {
            Holders partly = now;
            for (std::size_t m = 1; m < moves.size(); ++m)
              if (std::stoull(moves[m][0]) <= k) partly[moves[m][1]] = {moves[m][3]};
            res = test::run_hrw({"check", "--plan", plain_undo, "--through-round", std::to_string(k), "--placement",
                                 dir.write("partly.csv", placement_csv(keys, partly, 1))});
            INFO(res.err);
            CHECK(res.exit_code == 0);
          }
        }
      }
      ++n;
    }
  }
}

TEST_CASE("check --plan of a staged plan: --through-step S [--through-round N]", "[plan][progress]") {
  test::TempDir dir;
  std::vector<std::string> keys;
  for (int i = 0; i < 2000; ++i) keys.push_back("k" + std::to_string(i));
  std::string text;
  for (auto& k : keys) text += k + "\n";
  const std::string keys_file = dir.write("keys.txt", text);
  const ClusterSpec sa = test::make_spec(6, false, 1);
  ClusterSpec sb = sa;
  sb.version = 100;  // room for the steps' versions
  sb.nodes.push_back({"node-new", std::nullopt, {{"zone", "z2"}}});
  const std::string fa = dir.write("a.json", view_json(sa)), fb = dir.write("b.json", view_json(sb));
  const std::string plan = dir.file("staged");
  auto res = test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys_file, "--out", plan,
                            "--max-moved-fraction", "0.05", "--max-moves-per-node", "10", "--transitions", "--quiet"});
  REQUIRE(res.exit_code == 0);
  REQUIRE(test::names(plan + "/steps").size() >= 2);
  // Step 1 done, step 2 through round 2.
  Holders now = placed(ClusterView(sa), keys, 1, "");
  execute(plan + "/steps/01/transitions.csv", ~std::uint64_t{0}, now);
  execute(plan + "/steps/02/transitions.csv", 2, now);
  const std::string current = dir.write("current.csv", placement_csv(keys, now, 1));
  auto check = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = {"check", "--plan", plan, "--placement", current, "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_hrw(args);
  };
  CHECK(check({"--through-step", "2", "--through-round", "2"}).exit_code == 0);
  CHECK(check({"--through-step", "2", "--through-round", "1"}).exit_code == 3);
  CHECK(check({"--through-step", "1"}).exit_code == 3);
  res = check({"--through-round", "2"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --plan: " + plan + " is a staged plan: give --through-step S\n");
  res = check({"--through-step", "99"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --through-step: " + plan + " has no step 99\n");
}

TEST_CASE("check --plan refuses what it cannot check, one line each", "[plan][progress]") {
  test::TempDir dir;
  const ClusterSpec sa = test::make_spec(4, false, 1);
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes.pop_back();
  const std::string fa = dir.write("a.json", view_json(sa)), fb = dir.write("b.json", view_json(sb));
  const std::string keys = dir.write("k.txt", "a\nb\nc\nd\ne\n");
  REQUIRE(test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys, "--out", dir.file("p"), "--quiet"}).exit_code == 0);
  const std::string current = dir.write("c.csv", "key,owner\na,node-0\n");
  // Without transitions.csv each key's round comes from moves.csv; a round past its last
  // is refused naming that file.
  auto res = test::run_hrw({"check", "--plan", dir.file("p"), "--through-round", "99", "--placement", current});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Catch::StartsWith("hrw: " + dir.file("p") + ": through round 99: the plan's last round is "));
  CHECK_THAT(res.err, Catch::EndsWith(" (moves.csv)\n"));
  res = test::run_hrw({"check", "--plan", dir.file("p"), "--placement", current});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --plan: give --through-round N (or --through-step S for a staged plan)\n");
  res = test::run_hrw({"check", "--cluster", fb, "--through-round", "1", "--placement", current});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --through-round goes with --plan\n");
  res = test::run_hrw({"check", "--plan", dir.file("p"), "--through-round", "-1", "--placement", current});
  CHECK(res.exit_code == 2);
  // A round past the plan's last is refused, not taken as "every round done".
  REQUIRE(test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", keys, "--out", dir.file("t"), "--transitions",
                         "--quiet"})
              .exit_code == 0);
  const auto last = key_rounds(dir.file("t/transitions.csv"));
  std::uint64_t last_round = 0;
  for (const auto& [key, round] : last) last_round = std::max(last_round, round);
  REQUIRE(last_round >= 1);
  res = test::run_hrw({"check", "--plan", dir.file("t"), "--through-round", std::to_string(last_round + 1),
                       "--placement", current});
  CHECK(res.exit_code == 2);
  CHECK(res.err == fmt::format("hrw: {}: through round {}: the plan's last round is {} (transitions.csv)\n",
                               dir.file("t"), last_round + 1, last_round));
  // The misplaced keys' file never replaces one of the plan's own files.
  const std::string from_json = test::read_file(dir.file("t/from.json"));
  for (const char* name : {"from.json", "transitions.csv", "new.csv"}) {
    const std::string inside = dir.file(std::string("t/") + name);
    res = test::run_hrw({"check", "--plan", dir.file("t"), "--through-round", "1", "--placement", current,
                         "--misplaced", inside});
    CHECK(res.exit_code == 2);
    CHECK_THAT(res.err, Catch::Matchers::Contains("the misplaced keys' file is inside the plan folder"));
  }
  CHECK(test::read_file(dir.file("t/from.json")) == from_json);
  CHECK_FALSE(std::filesystem::exists(dir.file("t/new.csv")));

  // A plan from a placement file with R > 1 needs transitions.csv: only it lists the
  // replicas a key loses.
  const std::string current3 = dir.write("c3.csv", "key,replica_1,replica_2\na,node-0,node-1\nb,node-1,node-2\n");
  REQUIRE(test::run_hrw({"plan", "--from-placement", current3, "--to", fb, "--out", dir.file("fp"), "--quiet"}).exit_code == 0);
  res = test::run_hrw({"check", "--plan", dir.file("fp"), "--through-round", "0", "--placement", current3});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + dir.file("fp") + ": a plan from a placement file with R > 1 is checked from its "
                   "transitions.csv (only it lists the replicas a key loses): make the plan with --transitions\n");
  // A folder that names neither view A nor a placement file is not a plan folder.
  std::filesystem::remove(dir.file("t/from.json"));
  res = test::run_hrw({"check", "--plan", dir.file("t"), "--through-round", "1", "--placement", current});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + dir.file("t") + ": no from.json, and summary.json names no placement file: not a plan "
                   "folder of two views or of a placement file\n");
}

TEST_CASE("check --plan without transitions.csv: rounds from moves.csv, R = 3, a key that only loses "
          "replicas is refused, naming it", "[plan][progress]") {
  test::TempDir dir;
  // Three zones of two nodes, R = 3 across zones; B adds n31 to z1 (keys gain it by a copy).
  ClusterSpec sa;
  sa.version = 1;
  for (int z = 0; z < 3; ++z)
    for (int n = 0; n < 2; ++n)
      sa.nodes.push_back({fmt::format("n{}{}", z, n), std::nullopt, {{"zone", fmt::format("z{}", z)}}});
  ClusterSpec sb = sa;
  sb.version = 2;
  sb.nodes.push_back({"n31", std::nullopt, {{"zone", "z1"}}});
  const ClusterView a(sa), b(sb);
  const std::string fa = dir.write("a.json", view_json(sa)), fb = dir.write("b.json", view_json(sb));
  std::vector<std::string> keys;
  std::string text = "key\n";
  for (int i = 0; i < 600; ++i) keys.push_back("k" + std::to_string(i)), text += keys.back() + "\n";
  const std::string input = dir.write("k.txt", text);
  REQUIRE(test::run_hrw({"plan", "--from", fa, "--to", fb, "--keys", input, "--replicas", "3", "--distinct", "zone",
                         "--max-moves-per-node", "10", "--out", dir.file("p"), "--quiet"}).exit_code == 0);
  const auto moves = test::parse_csv_file(dir.file("p/moves.csv"));
  std::map<std::string, std::uint64_t> round;
  for (std::size_t m = 1; m < moves.size(); ++m)
    round[moves[m][1]] = std::max<std::uint64_t>(round[moves[m][1]], std::stoull(moves[m][0]));
  const std::uint64_t last = rounds_of(dir.file("p"));
  REQUIRE(last >= 3);
  const Holders in_a = placed(a, keys, 3, "zone"), in_b = placed(b, keys, 3, "zone");
  for (const std::uint64_t k : {std::uint64_t{0}, last / 2, last}) {
    Holders now = in_a;
    for (auto& [key, r] : round)
      if (r <= k) now[key] = in_b.at(key);
    const std::string current = dir.write("c.csv", placement_csv(keys, now, 3));
    const auto res = test::run_hrw({"check", "--plan", dir.file("p"), "--through-round", std::to_string(k), "--placement",
                                    current, "--distinct", "zone"});
    INFO(res.err);
    CHECK(res.exit_code == 0);
    // One round behind, the keys of round k are found.
    if (k == 0) continue;
    const auto behind = test::run_hrw({"check", "--plan", dir.file("p"), "--through-round", std::to_string(k - 1),
                                       "--placement", current, "--distinct", "zone", "--format", "json"});
    std::uint64_t of_round_k = 0;
    for (auto& [key, r] : round) of_round_k += r == k && set_of(in_a.at(key)) != set_of(in_b.at(key));
    CHECK(behind.exit_code == (of_round_k ? 3 : 0));
    CHECK(nlohmann::json::parse(behind.out)["misplaced"] == of_round_k);
  }
  // B loses zone z2 (partial sets): keys keep their other replicas and lose z2's without a
  // copy, so moves.csv has no row for them.
  ClusterSpec sc = sa;
  sc.version = 3;
  sc.nodes.resize(4);
  const std::string fc = dir.write("c.json", view_json(sc));
  REQUIRE(test::run_hrw({"plan", "--from", fa, "--to", fc, "--keys", input, "--replicas", "3", "--distinct", "zone",
                         "--partial", "--allow-single-copy", "--out", dir.file("lost"), "--quiet"}).exit_code == 0);
  const auto res = test::run_hrw({"check", "--plan", dir.file("lost"), "--through-round", "0", "--placement",
                                  dir.write("a.csv", placement_csv(keys, in_a, 3)), "--distinct", "zone", "--partial"});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Catch::Contains(": from.json and to.json hold it on other nodes but moves.csv has no row for "
                                      "it (it only loses replicas): its round is in transitions.csv only: make the "
                                      "plan with --transitions"));
}

TEST_CASE("check --plan places the plan's views by their rule (contract §8)", "[progress][rule]") {
  // Views that carry "replicas 2, distinct zone": a placement made by the rule, with no
  // round executed, is exactly where the plan expects it (the rule's distinct label kept).
  test::TempDir dir;
  std::string from = R"({"version": 1, "rule": {"replicas": 2, "distinct": "zone"}, "nodes": [)";
  std::string to = R"({"version": 2, "rule": {"replicas": 2, "distinct": "zone"}, "nodes": [)";
  for (int i = 0; i < 7; ++i) {
    const std::string node = (i ? "," : "") + fmt::format(R"({{"id": "n{}", "zone": "z{}"}})", i, i % 3);
    if (i < 6) from += node;
    to += node;
  }
  const std::string a = dir.write("a.json", from + "]}"), b = dir.write("b.json", to + "]}");
  std::string keys;
  for (int i = 0; i < 2000; ++i) keys += fmt::format("user:{}\n", i);
  const std::string k = dir.write("k.txt", keys);
  REQUIRE(test::run_hrw({"plan", "--from", a, "--to", b, "--keys", k, "--transitions", "--max-moves-per-node",
                         "100", "--out", dir.file("p"), "--quiet"}).exit_code == 0);
  REQUIRE(test::run_hrw({"place", "--cluster", a, "--keys", k, "--out", dir.file("cur.csv"), "--quiet"}).exit_code == 0);
  const auto res = test::run_hrw({"check", "--plan", dir.file("p"), "--through-round", "0", "--placement",
                                  dir.file("cur.csv"), "--quiet"});
  INFO(res.err);
  CHECK(res.exit_code == 0);
}
