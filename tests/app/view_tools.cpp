// hrw view show / hrw view edit (docs/plan.md, "Changing a view"): an edit round trips
// (edit -> show -> the edited file places every key as the reference places the view
// built by hand), the rule and hierarchy are kept, and every bad input is one line naming
// the flag, the node or the field (exit 2) with nothing written.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"
#include "hrw/view_tools.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

ClusterSpec base_spec() {
  ClusterSpec s;
  s.version = 7;
  s.seed = "s1";
  s.rule = PlacementRule{2, "zone", false};
  for (int i = 0; i < 6; ++i)
    s.nodes.push_back({fmt::format("n{}", i), i == 0 ? std::optional<double>(2.5) : std::nullopt,
                       {{"rack", fmt::format("r{}", i % 2)}, {"zone", fmt::format("z{}", i % 3)}}});
  return s;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("view edit round trip: edit -> show -> the reference placement of the hand-made view", "[view][edit]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(base_spec()));
  const std::string b = dir.file("b.json");
  auto res = test::run_hrw({"view", "edit", a, "--add", "n9:zone=z1,rack=r0", "--add", "n10", "--remove", "n3",
                            "--weight", "n1=4", "--weight", "n9=0.5", "--out", b});
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  CHECK(res.out.empty());

  ClusterSpec want = base_spec();
  want.version = 8;
  want.nodes.erase(want.nodes.begin() + 3);
  want.nodes[1].weight = 4;
  want.nodes.push_back({"n9", 0.5, {{"rack", "r0"}, {"zone", "z1"}}});  // labels in name order, as read back
  want.nodes.push_back({"n10", std::nullopt, {}});
  const ClusterView expected(want), got(load_cluster_file(b));
  CHECK(view_json(got) == view_json(expected));  // rule, seed and every node kept or edited
  REQUIRE(got.rule());
  CHECK(*got.rule() == PlacementRule{2, "zone", false});
  for (int i = 0; i < 2000; ++i) {
    const std::string key = "user:" + std::to_string(i);
    CHECK(test::holders(got, key, 2, "zone") == test::holders(expected, key, 2, "zone"));
  }

  // show --format json: every field, shares w_i / Σw.
  res = test::run_hrw({"view", "show", b, "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto j = nlohmann::json::parse(res.out);
  CHECK(j["version"] == 8);
  CHECK(j["seed"] == "s1");
  CHECK(j["weighted"] == true);
  CHECK(j["node_count"] == 7);
  CHECK(j["rule"] == nlohmann::json{{"replicas", 2}, {"distinct", "zone"}, {"partial", false}});
  CHECK(j["hierarchy"].is_null());
  double total = 0;
  for (const Node& n : expected.nodes()) total += n.weight;
  REQUIRE(j["nodes"].size() == 7);
  for (std::uint32_t i = 0; i < expected.size(); ++i) {
    CHECK(j["nodes"][i]["id"] == expected.node(i).id);
    CHECK(j["nodes"][i]["weight"] == expected.node(i).weight);
    CHECK(j["nodes"][i]["target_share"].get<double>() == Approx(expected.node(i).weight / total).epsilon(1e-15));
  }
  CHECK(j["nodes"][2]["id"] == "n10");  // memcmp order: n0, n1, n10, n2, ...
  CHECK(j["nodes"][2]["labels"] == nlohmann::json::object());  // n10 carries none
  // zone: z0, z1, z2 and n10 alone; rack: r0, r1 and n10.
  CHECK(j["labels"] == nlohmann::json::parse(R"([{"label": "rack", "nodes": 6, "domains": 3},
                                                  {"label": "zone", "nodes": 6, "domains": 4}])"));
  res = test::run_hrw({"view", "show", b});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, StartsWith(fmt::format("view {}: version 8, 7 node(s), weighted (total {}), seed \"s1\", hash "
                                             "fnv1a-fmix\nrule: replicas 2, distinct \"zone\", not partial\n",
                                             b, total)));
  CHECK_THAT(res.out, Contains("label \"zone\": 4 domain(s), carried by 6 of 7 node(s)\n"));
  CHECK_THAT(res.out, Contains("n9 "));

  // --version sets it; the hierarchy is kept.
  ClusterSpec tree = base_spec();
  tree.rule.reset();
  tree.hierarchy = std::vector<std::string>{"zone", "rack"};
  const std::string t = dir.write("t.json", view_json(tree));
  res = test::run_hrw({"view", "edit", t, "--add", "n7:zone=z0,rack=r1", "--version", "40", "--out", dir.file("t2.json")});
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  const ClusterView t2(load_cluster_file(dir.file("t2.json")));
  CHECK(t2.version() == 40);
  REQUIRE(t2.hierarchy());
  res = test::run_hrw({"view", "show", dir.file("t2.json"), "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto tj = nlohmann::json::parse(res.out);
  CHECK(tj["hierarchy"].size() == 2);
  CHECK(tj["hierarchy"][0]["label"] == "zone");
  CHECK(tj["hierarchy"][0]["buckets"].size() == 3);
  CHECK(tj["hierarchy"][0]["buckets"][0]["name"] == "zone=z0");
  CHECK(tj["hierarchy"][1]["buckets"].size() == 6);  // (z, r) pairs of 7 nodes
}

TEST_CASE("view edit: every bad input is one line naming the flag, node or field, nothing written", "[view][edit]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(base_spec()));
  const std::string b = dir.file("b.json");
  auto refused = [&](std::vector<std::string> args) {
    std::vector<std::string> run = {"view", "edit", a};
    run.insert(run.end(), args.begin(), args.end());
    run.insert(run.end(), {"--out", b});
    const auto res = test::run_hrw(run);
    INFO(res.err);
    CHECK(res.exit_code == 2);
    CHECK(lines(res.err) == 1);
    CHECK(!std::filesystem::exists(b));
    return res.err;
  };
  CHECK(refused({"--remove", "nope"}) == fmt::format("hrw: {}: node \"nope\" to remove is not in {}\n", b, a));
  CHECK(refused({"--weight", "nope=2"}) == fmt::format("hrw: {}: node \"nope\" to reweight is not in the view\n", b));
  CHECK(refused({"--add", "n1"}) == fmt::format("hrw: {}: node \"n1\" to add is already in the view\n", b));
  CHECK_THAT(refused({"--add", "x", "--add", "x"}), Contains("node \"x\" is added twice"));
  for (const char* w : {"n1=0", "n1=-1", "n1=abc", "n1=nan", "n1=inf", "n1=", "n1=1e400"})
    CHECK_THAT(refused({"--weight", w}), StartsWith("hrw: --weight: must be a number in (0, "));
  CHECK(refused({"--weight", "n1"}) == "hrw: --weight: must be ID=WEIGHT, got \"n1\"\n");
  CHECK_THAT(refused({"--weight", "n1=1e-12"}), Contains("n1") && Contains("weight"));  // the view's limit
  CHECK(refused({"--add", "x:zone"}) ==
        "hrw: --add: label \"zone\" has no '=' in \"x:zone\" (the form is ID[:LABEL=VALUE,...])\n");
  CHECK(refused({"--add", "x:=z1"}) == "hrw: --add: an empty label name in \"x:=z1\" (the form is ID[:LABEL=VALUE,...])\n");
  CHECK(refused({"--add", ":zone=z1"}) ==
        "hrw: --add: an empty node id in \":zone=z1\" (the form is ID[:LABEL=VALUE,...])\n");
  CHECK(refused({"--add", "x:zone=a,zone=b"}) ==
        "hrw: --add: label \"zone\" is given twice in \"x:zone=a,zone=b\" (the form is ID[:LABEL=VALUE,...])\n");
  CHECK_THAT(refused({"--version", "-1"}), StartsWith("hrw: --version: must be an integer from 0 to "));
  // Removing nodes until the rule cannot hold: the view's own validation names the field.
  CHECK_THAT(refused({"--remove", "n0", "--remove", "n1", "--remove", "n2", "--remove", "n3", "--remove", "n4"}),
             Contains("rule.replicas 2 exceeds the 1 node(s)"));

  // Version wrap: the largest version has no successor unless one is given.
  ClusterSpec top = base_spec();
  top.version = INT64_MAX;
  const std::string t = dir.write("top.json", view_json(top));
  auto res = test::run_hrw({"view", "edit", t, "--add", "x", "--out", b});
  CHECK(res.exit_code == 2);
  CHECK(res.err == fmt::format("hrw: {}: version 9223372036854775807 has no successor: give the new version\n", b));
  res = test::run_hrw({"view", "edit", t, "--add", "x", "--version", "3", "--out", b});
  CHECK(res.exit_code == 0);

  // A hierarchical view: an added node must carry every hierarchy label (contract §6).
  ClusterSpec tree = base_spec();
  tree.hierarchy = std::vector<std::string>{"zone", "rack"};
  const std::string h = dir.write("h.json", view_json(tree));
  res = test::run_hrw({"view", "edit", h, "--add", "x:zone=z1", "--out", dir.file("h2.json")});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains("\"x\"") && Contains("rack"));

  // Never over an input; options of the other action are refused.
  res = test::run_hrw({"view", "edit", a, "--add", "x", "--out", a});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, StartsWith("hrw: --out and view name the same file"));
  CHECK(test::run_hrw({"view", "edit", a, "--add", "x"}).err == "hrw: view edit: give --out FILE for the edited view\n");
  CHECK(test::run_hrw({"view", "show", a, "--add", "x"}).err == "hrw: --add goes with hrw view edit\n");
  CHECK(test::run_hrw({"view", "edit", a, "--format", "json", "--out", b}).err == "hrw: --format goes with hrw view show\n");
}

TEST_CASE("view edit: a node named twice in one kind of edit, and a node's own fields as labels, are refused",
          "[view][edit]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(base_spec()));
  const std::string b = dir.file("b.json");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      // The second removal once blamed the view ("not in a.json"), which holds n1.
      {{"--remove", "n1", "--remove", "n1"}, "hrw: " + b + ": node \"n1\" is removed twice\n"},
      // Two weights for one node: one of them was kept without a word.
      {{"--weight", "n1=2", "--weight", "n1=3"}, "hrw: " + b + ": node \"n1\" is given a weight twice\n"},
      {{"--add", "x:zone=z1,rack=r0", "--add", "x"}, "hrw: " + b + ": node \"x\" is added twice\n"},
      // id, weight and cut are the node's fields: as labels they wrote a second "id".
      {{"--add", "x:id=n1,zone=z1,rack=r0"},
       "hrw: " + b + ": node \"x\": \"id\" is not a label name (id, weight and cut are the node's own fields)\n"},
      {{"--add", "x:weight=5,zone=z1,rack=r0"},
       "hrw: " + b + ": node \"x\": \"weight\" is not a label name (id, weight and cut are the node's own fields)\n"},
      {{"--add", "x:zone=z1,zone=z2,rack=r0"},
       "hrw: --add: label \"zone\" is given twice in \"x:zone=z1,zone=z2,rack=r0\" (the form is ID[:LABEL=VALUE,...])\n"},
  };
  for (const auto& [flags, message] : cases) {
    std::vector<std::string> args = {"view", "edit", a, "--out", b};
    args.insert(args.end(), flags.begin(), flags.end());
    INFO(fmt::format("{}", fmt::join(flags, " ")));
    const auto res = test::run_hrw(args);
    CHECK(res.exit_code == 2);
    CHECK(res.err == message);
    CHECK_FALSE(std::filesystem::exists(b));
  }
  // The library says the same to any caller.
  ViewEdit twice;
  twice.remove = {"n2", "n2"};
  CHECK_THROWS_WITH(edit_view(ClusterView(base_spec()), twice, "v"), "v: node \"n2\" is removed twice");
  // Any view, not only an edit: a label given twice, or named as a node's field.
  ClusterSpec doubled = base_spec();
  doubled.nodes[1].labels.push_back({"zone", "z9"});
  CHECK_THROWS_WITH(ClusterView(doubled), "cluster: node \"n1\": label \"zone\" is given twice");
  ClusterSpec field = base_spec();
  field.nodes[2].labels.push_back({"cut", "7"});
  CHECK_THROWS_WITH(ClusterView(field),
                    "cluster: node \"n2\": \"cut\" is not a label name (id, weight and cut are the node's own fields)");
}

TEST_CASE("view show: a table readable at 10^4 nodes", "[view][show]") {
  test::TempDir dir;
  ClusterSpec big;
  big.version = 3;
  for (int i = 0; i < 10000; ++i)
    big.nodes.push_back({fmt::format("node-{}", i), 1.0 + (i % 100) / 10.0, {{"zone", fmt::format("z{}", i % 7)}}});
  const std::string f = dir.write("big.json", view_json(big));
  const auto res = test::run_hrw({"view", "show", f});
  REQUIRE(res.exit_code == 0);
  CHECK(lines(res.out) < 40);
  CHECK_THAT(res.out, Contains("... 9980 more nodes"));
  CHECK_THAT(res.out, Contains("target share x N over 10000 nodes: min "));
  CHECK_THAT(res.out, Contains("label \"zone\": 7 domain(s), carried by 10000 of 10000 node(s)"));
}

TEST_CASE("view show: cuts in the table and the JSON, and control bytes of ids and labels escaped",
          "[view][show]") {
  test::TempDir dir;
  const std::string cut = dir.write("cut.json", R"({"version": 1, "nodes": [{"id": "a", "cut": 3221225472}, "b", "c"]})");
  auto res = test::run_hrw({"view", "show", cut});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, Contains("cuts (contract section 9): 1 of 3 node(s) clear only part of the keys\n"));
  CHECK_THAT(res.out, Contains("node        weight     target         cut  clears  labels\n"));
  CHECK_THAT(res.out, Contains("a                1   33.3333%  3221225472   25.0%  \n"));
  CHECK_THAT(res.out, Contains("b                1   33.3333%           0  100.0%  \n"));
  res = test::run_hrw({"view", "show", cut, "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto json = nlohmann::json::parse(res.out);
  CHECK(json["has_cuts"] == true);
  CHECK(json["nodes"][0]["cut"] == 3221225472u);
  CHECK(json["nodes"][1]["cut"] == 0);
  // Without cuts: no column, no line.
  res = test::run_hrw({"view", "show", dir.write("plain.json", R"({"version": 1, "nodes": ["a", "b"]})")});
  CHECK_FALSE(Catch::Matchers::Contains("cut").match(res.out));
  // An id with an escape sequence and a label with a line break stay one printable line each.
  const std::string esc = dir.write("esc.json", "{\"version\": 1, \"nodes\": [{\"id\": \"a\\u001b[31mred\", "
                                                "\"zone\": \"z\\nq\"}, \"b\"]}");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"view", "show", esc}, {"place", "--cluster", esc, "--keys", dir.write("k.txt", "x\ny\n"), "--out",
                                   dir.file("o.csv")}}) {
    res = test::run_hrw(args);
    INFO(args[0]);
    REQUIRE(res.exit_code == 0);
    const std::string& table = args[0] == "view" ? res.out : res.err;
    CHECK(table.find('\x1b') == std::string::npos);
    CHECK_THAT(table, Contains("a\\x1b[31mred"));
    if (args[0] == "view") CHECK_THAT(table, Contains("zone=z\\x0aq\n"));
  }
}

TEST_CASE("view show --keys: each node's keys and bytes held, every replica counted, against the reference",
          "[view][show]") {
  test::TempDir dir;
  ClusterSpec spec;
  spec.version = 4;
  for (int i = 0; i < 9; ++i)
    spec.nodes.push_back({fmt::format("n{}", i), i == 2 ? std::optional<double>(2.5) : std::nullopt,
                          {{"zone", fmt::format("z{}", i % 3)}}});
  const ClusterView view(spec);
  const std::string file = dir.write("v.json", view_json(spec));
  std::string text = "key,bytes\n";
  std::map<std::string, std::uint64_t> want_keys, want_bytes;
  for (int i = 0; i < 2000; ++i) {
    const std::string key = fmt::format("user:{}", i);
    const std::uint64_t bytes = 1 + (static_cast<std::uint64_t>(i) * 7919) % 100000;
    text += fmt::format("{},{}\n", key, bytes);
    for (const std::string& id : test::holders(view, key, 3, "zone")) want_keys[id] += 1, want_bytes[id] += bytes;
  }
  const std::string keys = dir.write("k.csv", text);
  auto res = test::run_hrw({"view", "show", file, "--keys", keys, "--replicas", "3", "--distinct", "zone",
                            "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto shown = nlohmann::json::parse(res.out);
  CHECK(shown["keys"] == 2000);
  CHECK(shown["replicas"] == 3);
  for (const auto& node : shown["nodes"]) {
    const std::string id = node["id"];
    CHECK(node["keys_held"] == want_keys[id]);
    CHECK(node["bytes_held"] == want_bytes[id]);
  }
  res = test::run_hrw({"view", "show", file, "--keys", keys, "--replicas", "3", "--distinct", "zone"});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, Contains("keys held"));
  CHECK_THAT(res.out, Contains(fmt::format(" {} ", want_bytes["n2"])));
  // Without --keys the placing options mean nothing; edit takes none of them.
  res = test::run_hrw({"view", "show", file, "--replicas", "3"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --replicas goes with --keys\n");
  res = test::run_hrw({"view", "edit", file, "--keys", keys, "--out", dir.file("o.json")});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --keys goes with hrw view show\n");
  CHECK_FALSE(std::filesystem::exists(dir.file("o.json")));
}
