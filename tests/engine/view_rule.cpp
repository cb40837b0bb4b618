// Contract v3 §8: the placement rule a view carries, and `distinct` labels that no node or
// only some nodes carry. Results are checked against the reference, messages exactly.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"

using namespace hrw;
using Catch::Matchers::Contains;

namespace {

// 12 nodes in zones z0..z3 and racks r0..r2; `misspelt` nodes carry "zon" instead of "zone".
ClusterSpec zoned_view(std::optional<PlacementRule> rule, int misspelt = 0) {
  ClusterSpec s;
  s.version = 4 + misspelt;  // one version names one view (docs/plan.md, "Versions")
  s.rule = std::move(rule);
  for (int i = 0; i < 12; ++i) {
    NodeSpec n{fmt::format("n{:02}", i), std::nullopt, {}};
    n.labels.emplace_back("rack", fmt::format("r{}", i % 3));
    n.labels.emplace_back(i >= 12 - misspelt ? "zon" : "zone", fmt::format("z{}", i % 4));
    s.nodes.push_back(std::move(n));
  }
  return s;
}

std::string key_lines(int n) {
  std::string text;
  for (int i = 0; i < n; ++i) text += "user:" + std::to_string(i) + "\n";
  return text;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("§8 rule: parsed, validated, refused when malformed", "[rule]") {
  const std::string nodes = R"("nodes": [{"id": "a", "zone": "x"}, {"id": "b", "zone": "y"}])";
  auto refusal = [](const std::string& text) {
    try {
      (void)ClusterView(parse_cluster_json(text, "v.json"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refusal(R"({"rule": {"replicas": 2, "distinct": "zone", "partial": false}, )" + nodes + "}") == "accepted");
  CHECK(refusal(R"({"rule": {}, )" + nodes + "}") == "accepted");  // all defaults
  CHECK(refusal(R"({"rule": {"replicas": 0}, )" + nodes + "}") ==
        "v.json: rule.replicas must be an integer from 1 to 4294967295");
  CHECK(refusal(R"({"rule": {"replicas": "2"}, )" + nodes + "}") ==
        "v.json: rule.replicas must be an integer from 1 to 4294967295");
  CHECK(refusal(R"({"rule": {"replicas": 2.5}, )" + nodes + "}") ==
        "v.json: rule.replicas must be an integer from 1 to 4294967295");
  CHECK(refusal(R"({"rule": {"replicas": 4294967296}, )" + nodes + "}") ==
        "v.json: rule.replicas must be an integer from 1 to 4294967295");
  CHECK(refusal(R"({"rule": {"replicas": 3}, )" + nodes + "}") ==
        "v.json: rule.replicas 3 exceeds the 2 node(s) of the view");
  CHECK(refusal(R"({"rule": {"replica": 2}, )" + nodes + "}") ==
        "v.json: unknown field \"replica\" in \"rule\" (allowed: replicas, distinct, partial)");
  CHECK(refusal(R"({"rule": {"partial": 1}, )" + nodes + "}") == "v.json: rule.partial must be true or false");
  CHECK(refusal(R"({"rule": {"distinct": ""}, )" + nodes + "}") ==
        "v.json: rule.distinct must be a label name (a non-empty string)");
  CHECK(refusal(R"({"rule": [2], )" + nodes + "}") ==
        "v.json: \"rule\" must be an object (replicas, distinct, partial)");
  CHECK(refusal(R"({"rule": {"distinct": "Zone"}, )" + nodes + "}") ==
        "v.json: rule.distinct \"Zone\" is a label no node carries (its labels: \"zone\")");
}

TEST_CASE("§8 distinct: a label no node carries is refused, listing the view's labels", "[rule][distinct]") {
  const ClusterView v(zoned_view(std::nullopt));
  PlaceOptions o;
  o.replicas = 2;
  o.distinct_label = "Zone";
  try {
    validate_request(v, o);
    FAIL("accepted");
  } catch (const InputError& e) {
    CHECK(e.setting() == Setting::distinct_label);
    CHECK(std::string(e.what()) ==
          "distinct label \"Zone\" is a label no node of cluster carries (its labels: \"rack\", \"zone\")");
  }
  o.allow_partial = true;  // partial results do not make the label exist
  CHECK_THROWS_AS(validate_request(v, o), InputError);
  o.distinct_label = "zone";
  CHECK_NOTHROW(validate_request(v, o));
  CHECK_FALSE(distinct_warning(v, o));
}

TEST_CASE("§8 distinct: a label some nodes lack draws one warning naming the count and the first",
          "[rule][distinct]") {
  const ClusterView v(zoned_view(std::nullopt, 2));
  PlaceOptions o;
  o.replicas = 2;
  o.distinct_label = "zone";
  const auto w = distinct_warning(v, o);
  REQUIRE(w);
  CHECK(*w == "2 of the 12 nodes of cluster lack the distinct label \"zone\" (the first: \"n10\"); "
              "each of them is a failure domain of its own");
}

TEST_CASE("§8 distinct on the command line: refused or warned once, in select, place, plan, check",
          "[rule][distinct][cli]") {
  test::TempDir dir;
  const std::string good = dir.write("good.json", view_json(zoned_view(std::nullopt)));
  const std::string typo = dir.write("typo.json", view_json(zoned_view(std::nullopt, 1)));
  const std::string keys = dir.write("k.txt", key_lines(50));
  const std::string refused = "hrw: --distinct \"Zone\" is a label no node of " + good +
                              " carries (its labels: \"rack\", \"zone\")\n";
  for (const std::vector<std::string>& args : std::vector<std::vector<std::string>>{
           {"select", "k", "--cluster", good, "--replicas", "2", "--distinct", "Zone"},
           {"place", "--cluster", good, "--keys", keys, "--replicas", "2", "--distinct", "Zone"},
           {"plan", "--from", good, "--to", good, "--keys", keys, "--out", dir.file("p"), "--replicas", "2",
            "--distinct", "Zone"}}) {
    const auto res = test::run_hrw(args);
    INFO(args[0]);
    CHECK(res.exit_code == 2);
    CHECK(res.err == refused);
  }
  const std::string warning = "hrw: warning: 1 of the 12 nodes of " + typo +
                              " lack the distinct label \"zone\" (the first: \"n11\"); each of them "
                              "is a failure domain of its own\n";
  auto res = test::run_hrw({"place", "--cluster", typo, "--keys", keys, "--replicas", "2", "--distinct", "zone",
                            "--quiet", "--out", dir.file("typo.csv")});
  CHECK(res.exit_code == 0);
  CHECK(res.err == warning);
  res = test::run_hrw({"select", "k", "--cluster", typo, "--replicas", "2", "--distinct", "zone"});
  CHECK(res.exit_code == 0);
  CHECK(res.err == warning);
  res = test::run_hrw({"plan", "--from", typo, "--to", good, "--keys", keys, "--out", dir.file("p"),
                       "--replicas", "2", "--distinct", "zone", "--quiet"});
  CHECK(res.exit_code == 0);
  CHECK(res.err == warning);  // only the view whose nodes lack it
  res = test::run_hrw({"check", "--cluster", typo, "--placement", dir.file("typo.csv"), "--distinct", "zone"});
  CHECK(res.exit_code == 0);
  CHECK(lines(res.err) >= 1);
  CHECK_THAT(res.err, Contains(warning));
}

TEST_CASE("§8 rule: a rule-carrying view places as the flags do, agreeing flags pass, "
          "contradicting ones are refused naming the file, the rule and the flag", "[rule][cli]") {
  test::TempDir dir;
  const PlacementRule rule{3, "zone", false};
  const std::string ruled = dir.write("ruled.json", view_json(zoned_view(rule)));
  const std::string plain = dir.write("plain.json", view_json(zoned_view(std::nullopt)));
  const std::string keys = dir.write("k.txt", key_lines(300));
  auto place = [&](std::vector<std::string> extra, const std::string& view) {
    std::vector<std::string> args{"place", "--cluster", view, "--keys", keys, "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return test::run_hrw(args);
  };
  const auto by_rule = place({}, ruled);
  const auto by_flags = place({"--replicas", "3", "--distinct", "zone"}, plain);
  REQUIRE(by_rule.exit_code == 0);
  REQUIRE(by_flags.exit_code == 0);
  CHECK(by_rule.out == by_flags.out);
  // Against the reference, key by key.
  const ClusterView v(zoned_view(rule));
  std::string expected = "key,replica_1,replica_2,replica_3\n";
  for (int i = 0; i < 300; ++i) {
    const std::string k = "user:" + std::to_string(i);
    const auto d = reference::top_r_distinct(v, k, 3, "zone", false);
    expected += fmt::format("{},{},{},{}\n", k, v.node(d.nodes[0]).id, v.node(d.nodes[1]).id, v.node(d.nodes[2]).id);
  }
  CHECK(by_rule.out == expected);
  CHECK(place({"--replicas", "3", "--distinct", "zone"}, ruled).out == expected);  // agreeing
  for (const auto& [extra, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--replicas", "2"}, "hrw: --replicas 2 contradicts the rule of " + ruled + " (replicas 3)\n"},
           {{"--distinct", "rack"},
            "hrw: --distinct \"rack\" contradicts the rule of " + ruled + " (distinct \"zone\")\n"},
           {{"--partial"}, "hrw: --partial on contradicts the rule of " + ruled + " (not partial)\n"}}) {
    const auto res = place(extra, ruled);
    CHECK(res.exit_code == 2);
    CHECK(res.err == message);
  }
  // select shows the rule's replicas without flags.
  auto res = test::run_hrw({"select", "user:7", "--cluster", ruled, "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto sel = nlohmann::json::parse(res.out);
  const auto d = reference::top_r_distinct(v, "user:7", 3, "zone", false);
  CHECK(sel["replicas"] == std::vector<std::string>{v.node(d.nodes[0]).id, v.node(d.nodes[1]).id, v.node(d.nodes[2]).id});
  // check needs no flags: the placement made by the rule is where the rule puts it.
  const std::string placement = dir.write("placement.csv", by_rule.out);
  res = test::run_hrw({"check", "--cluster", ruled, "--placement", placement});
  INFO(res.err);
  CHECK(res.exit_code == 0);
  res = test::run_hrw({"check", "--cluster", ruled, "--placement", placement, "--distinct", "rack"});
  CHECK(res.exit_code == 2);
  // plan between two views with the same rule places by it (R = 3).
  ClusterSpec grown = zoned_view(rule);
  grown.version = 5;
  grown.nodes.push_back({"n12", std::nullopt, {{"rack", "r0"}, {"zone", "z1"}}});
  const std::string grown_file = dir.write("grown.json", view_json(grown));
  res = test::run_hrw({"plan", "--from", ruled, "--to", grown_file, "--keys", keys, "--out", dir.file("p"), "--quiet"});
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  CHECK(summary["replicas"] == 3);
  const ClusterView g(grown);
  std::uint64_t changed = 0;
  for (int i = 0; i < 300; ++i) {
    const std::string k = "user:" + std::to_string(i);
    auto ids = [&](const ClusterView& view) {
      std::vector<std::string> out;
      for (auto n : reference::top_r_distinct(view, k, 3, "zone", false).nodes) out.push_back(view.node(n).id);
      std::sort(out.begin(), out.end());
      return out;
    };
    changed += ids(v) != ids(g);
  }
  CHECK(summary["moved"] == changed);
}
