// --hierarchy on hrw plan and hrw compare (docs/hierarchy.md): plans between hierarchical views and
// between a flat and a hierarchical one count exactly the keys whose owner the reference
// moves; compare's hrw-tree row appears with a hierarchy and measures the same thing.
#include <catch2/catch.hpp>

#include <string>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/reference.hpp"

using namespace hrw;
using namespace hrw::test;
using Catch::Matchers::Contains;

namespace {

// 60 nodes in zones of 20 and racks of 5; `extra` more nodes in a new rack of zone z0.
std::string cluster_json(int extra, int version, bool with_hierarchy) {
  std::string s = "{\"version\": " + std::to_string(version) + ",";
  if (with_hierarchy) s += " \"hierarchy\": [\"zone\", \"rack\"],";
  s += " \"nodes\": [";
  for (int i = 0; i < 60 + extra; ++i) {
    const bool added = i >= 60;
    s += (i ? ", " : "") + std::string("{\"id\": \"n") + std::to_string(i) + "\", \"zone\": \"z" +
         std::to_string(added ? 0 : i / 20) + "\", \"rack\": \"r" + std::to_string(added ? 9 : i / 5 % 4) + "\"}";
  }
  return s + "]}";
}

std::string keys_text(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "k" + std::to_string(i) + "\n";
  return s;
}

// Keys whose owner differs between the two views, by the reference.
std::uint64_t reference_moves(const ClusterView& a, const ClusterView& b, int n) {
  std::uint64_t moved = 0;
  for (int i = 0; i < n; ++i) {
    const std::string key = "k" + std::to_string(i);
    moved += a.node(reference::owner(a, key)).id != b.node(reference::owner(b, key)).id;
  }
  return moved;
}

ClusterView view_of(const std::string& json, const std::string& hierarchy) {
  ClusterSpec spec = parse_cluster_json(json, "t.json");
  if (!hierarchy.empty()) apply_hierarchy_list(spec, hierarchy);
  return ClusterView(std::move(spec));
}

}  // namespace

TEST_CASE("hrw plan --hierarchy: tree -> tree and flat -> tree plans count the reference's moves",
          "[hierarchy][cli]") {
  const TempDir dir;
  const int n = 5000;
  const std::string a_json = cluster_json(0, 1, false), b_json = cluster_json(5, 2, false);
  const std::string a = dir.write("a.json", a_json), b = dir.write("b.json", b_json);
  const std::string b_tree = dir.write("bt.json", cluster_json(5, 2, true));
  const std::string keys = dir.write("k.txt", keys_text(n));
  struct Case {
    std::string from, to, flag;
    ClusterView va, vb;
  };
  const Case cases[] = {
      {a, b, "zone,rack", view_of(a_json, "zone,rack"), view_of(b_json, "zone,rack")},
      {a, b, "zone", view_of(a_json, "zone"), view_of(b_json, "zone")},
      {a, b_tree, "", view_of(a_json, ""), view_of(cluster_json(5, 2, true), "")},  // flat -> tree
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = {"plan", "--from", c.from, "--to", c.to, "--keys", keys,
                                     "--out", dir.file("plan"), "--quiet"};
    if (!c.flag.empty()) args.insert(args.end(), {"--hierarchy", c.flag});
    const CliResult res = run_hrw(args);
    REQUIRE(res.exit_code == 0);
    const auto summary = nlohmann::json::parse(read_file(dir.file("plan/summary.json")));
    CHECK(summary["keys"] == n);
    CHECK(summary["moved"] == reference_moves(c.va, c.vb, n));
    CHECK(summary["moved"].get<std::uint64_t>() + summary["stayed"].get<std::uint64_t>() == n);
  }
  const CliResult bad = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out",
                                 dir.file("p2"), "--hierarchy", "zone,host"});
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains("lacks hierarchy label \"host\""));
}

TEST_CASE("hrw compare --hierarchy adds hrw-tree, whose moved fraction is the reference's",
          "[hierarchy][cli]") {
  const TempDir dir;
  const int n = 3000;
  const std::string a_json = cluster_json(0, 1, false), b_json = cluster_json(5, 2, false);
  const std::string a = dir.write("a.json", a_json), b = dir.write("b.json", b_json);
  const std::string keys = dir.write("k.txt", keys_text(n));
  CliResult res = run_hrw({"compare", "--keys", keys, "--from-cluster", a, "--to-cluster", b,
                           "--hierarchy", "zone,rack", "--format", "json"});
  REQUIRE(res.exit_code == 0);
  const auto report = nlohmann::json::parse(res.out);
  bool found = false;
  for (const auto& algo : report["algorithms"])
    if (algo["name"] == "hrw-tree") {
      found = true;
      const double want = static_cast<double>(reference_moves(view_of(a_json, "zone,rack"),
                                                              view_of(b_json, "zone,rack"), n)) / n;
      CHECK(algo["moved_fraction"].get<double>() == Approx(want).epsilon(1e-12));
    }
  CHECK(found);
  res = run_hrw({"compare", "--keys", keys, "--from-cluster", a, "--to-cluster", b});
  REQUIRE(res.exit_code == 0);
  CHECK(res.out.find("hrw-tree") == std::string::npos);
  res = run_hrw({"compare", "--sample", "10", "--hierarchy", "zone"});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains("--hierarchy needs --from-cluster/--to-cluster"));
}
