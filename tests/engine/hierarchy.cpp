// Hierarchical views (contract §6): validation, buckets, and the reference's tree ranking
// against an independent restatement of the rules.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <random>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/det_math.hpp"
#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "random_hierarchy.hpp"
#include "test_scale.hpp"

using namespace hrw;
using Catch::Matchers::Contains;

namespace {

ClusterView parse(const std::string& json) { return ClusterView(parse_cluster_json(json, "h.json")); }

std::string refusal(const std::string& json) {
  try {
    parse(json);
  } catch (const InputError& e) {
    return e.what();
  }
  FAIL("expected a refusal of " << json);
  return {};
}

// The bucket score restated from the contract, sharing nothing with the reference but the
// published primitives.
double bucket_key(const ClusterView& v, std::string_view key, const Bucket& b) {
  std::string bytes = v.seed();
  bytes += key;
  bytes += b.name;
  std::uint32_t r = fnv1a32(bytes);
  if (v.hash() == HashMode::fnv1a_fmix) r = fmix32(r);
  return det::ln(det::unit_from_hash(r)) / b.weight;
}

}  // namespace

TEST_CASE("hierarchy refusals name the node, the label or the level", "[hierarchy]") {
  const std::string nodes = R"("nodes": [{"id": "a", "zone": "z1", "rack": "r1"}, {"id": "b", "zone": "z2"}])";
  CHECK(refusal(R"({"hierarchy": ["zone", "rack"], )" + nodes + "}") ==
        "h.json: node \"b\" lacks hierarchy label \"rack\"");
  CHECK_THAT(refusal(R"({"hierarchy": [], )" + nodes + "}"), Contains("h.json: hierarchy: the list is empty"));
  CHECK(refusal(R"({"hierarchy": ["zone", "zone"], )" + nodes + "}") ==
        "h.json: hierarchy: label \"zone\" is repeated (levels 1 and 2)");
  CHECK(refusal(R"({"hierarchy": ["zone", 7], )" + nodes + "}") ==
        "h.json: hierarchy[1] must be a label name (a string), got number");
  CHECK_THAT(refusal(R"({"hierarchy": "zone", )" + nodes + "}"), Contains("must be an array"));
  CHECK_THAT(refusal(R"({"hierarchy": ["weight"], )" + nodes + "}"), Contains("not a label name"));

  const ClusterView v = parse(R"({"hierarchy": ["zone"], )" + nodes + "}");
  PlaceOptions o;
  o.distinct_label = "rack";
  try {
    validate_request(v, o);
    FAIL("distinct on a label outside the hierarchy must be refused");
  } catch (const InputError& e) {
    CHECK(e.setting() == Setting::distinct_label);
    CHECK_THAT(e.what(), Contains("\"rack\" is not a level of the hierarchy of h.json (zone)"));
  }
  o.distinct_label = "ra\nck";
  CHECK_THROWS_WITH(validate_request(v, o), Contains("\"ra\\nck\" is not a level of the hierarchy"));
  o.distinct_label = "zone";
  o.replicas = 2;
  CHECK_NOTHROW(validate_request(v, o));
}

TEST_CASE("buckets: literal names, weights summed, racks named alike are distinct",
          "[hierarchy]") {
  const ClusterView v = parse(R"({"hierarchy": ["zone", "rack"], "nodes": [
    {"id": "n1", "zone": "eu/1", "rack": "r=1", "weight": 2},
    {"id": "n2", "zone": "eu/1", "rack": "r=1", "weight": 0.5},
    {"id": "n3", "zone": "eu/1", "rack": "r2"},
    {"id": "n4", "zone": "us", "rack": "r=1", "weight": 3}]})");
  const Hierarchy& h = *v.hierarchy();
  REQUIRE(h.depth() == 2);
  REQUIRE(h.level(0).size() == 2);
  CHECK(h.level(0)[0].name == "zone=eu/1");
  CHECK(h.level(0)[0].weight == 3.5);
  CHECK(h.level(0)[1].name == "zone=us");
  REQUIRE(h.level(1).size() == 3);
  CHECK(h.level(1)[0].name == "zone=eu/1/rack=r2");
  CHECK(h.level(1)[1].name == "zone=eu/1/rack=r=1");
  CHECK(h.level(1)[1].weight == 2.5);
  CHECK(h.level(1)[2].name == "zone=us/rack=r=1");
  CHECK(h.level(1)[1].children == std::vector<std::uint32_t>{0, 1});
  CHECK(h.level(0)[0].children == std::vector<std::uint32_t>{0, 1});
  // "rack r=1" in two zones: two domains.
  CHECK(v.domain_count("rack") == 3);
  CHECK(v.domain_count("zone") == 2);
}

TEST_CASE("tree ranking equals the contract's rules, restated", "[hierarchy][reference]") {
  std::mt19937_64 rng(2024);
  const std::size_t views = hrw::test::scaled(120);
  for (std::size_t t = 0; t < views; ++t) {
    const ClusterView v(hrw::test::random_hierarchy(rng, 200, t % 2 == 1));
    const Hierarchy& h = *v.hierarchy();
    for (int k = 0; k < 8; ++k) {
      const std::string key = "key-" + std::to_string(rng() % 100000);
      INFO("view " << t << " key " << key);
      const auto ranking = reference::rank(v, key);
      REQUIRE(ranking.size() == v.size());
      std::set<std::uint32_t> seen;
      for (auto& s : ranking) seen.insert(s.node);
      CHECK(seen.size() == v.size());
      CHECK(reference::owner(v, key) == ranking.front().node);
      // At every level, a bucket's nodes are contiguous, and buckets that share a parent
      // appear in the order of their restated scores (ties: smaller name).
      for (std::size_t j = 0; j < h.depth(); ++j) {
        std::vector<std::uint32_t> order;  // level-j buckets in order of first appearance
        for (auto& s : ranking) {
          const std::uint32_t b = h.bucket_of(j, s.node);
          if (order.empty() || order.back() != b) order.push_back(b);
        }
        REQUIRE(order.size() == h.level(j).size());  // contiguous: each appears once
        for (std::size_t i = 1; i < order.size(); ++i) {
          const Bucket &a = h.level(j)[order[i - 1]], &b = h.level(j)[order[i]];
          if (a.parent != b.parent) continue;
          const double ka = bucket_key(v, key, a), kb = bucket_key(v, key, b);
          CHECK((ka > kb || (ka == kb && id_less(a.name, b.name))));
        }
      }
      // Inside a last-level bucket, nodes rank as a flat view of those nodes would.
      const std::uint32_t leaf = h.bucket_of(h.depth() - 1, ranking.front().node);
      ClusterSpec sub;
      sub.seed = v.seed();
      sub.hash = v.hash();
      for (std::uint32_t n : h.level(h.depth() - 1)[leaf].children) {
        NodeSpec ns{v.node(n).id, {}, {}};
        if (v.weighted()) ns.weight = v.node(n).weight;
        sub.nodes.push_back(ns);
      }
      const ClusterView flat(sub);
      const auto flat_rank = reference::rank(flat, key);
      for (std::size_t i = 0; i < flat_rank.size(); ++i)
        CHECK(v.node(ranking[i].node).id == flat.node(flat_rank[i].node).id);
      // The owner's path is the first bucket of every level.
      const auto path = reference::owner_path(v, key);
      REQUIRE(path.size() == h.depth());
      for (std::size_t j = 0; j < h.depth(); ++j)
        CHECK(path[j].bucket == h.bucket_of(j, ranking.front().node));
    }
  }
}

TEST_CASE("distinct LEVEL: the best node of each of the first R buckets of that level",
          "[hierarchy][reference]") {
  std::mt19937_64 rng(77);
  for (std::size_t t = 0; t < hrw::test::scaled(80); ++t) {
    const ClusterView v(hrw::test::random_hierarchy(rng, 150, t % 2 == 0));
    const Hierarchy& h = *v.hierarchy();
    const std::size_t j = rng() % h.depth();
    const std::string& label = h.labels()[j];
    const std::uint32_t r = 1 + static_cast<std::uint32_t>(rng() % 5);
    const std::string key = "k" + std::to_string(t);
    const auto got = reference::top_r_distinct(v, key, r, label, true);
    std::vector<std::uint32_t> want;
    std::set<std::uint32_t> taken;
    for (auto& s : reference::rank(v, key))
      if (want.size() < r && taken.insert(h.bucket_of(j, s.node)).second) want.push_back(s.node);
    CHECK(got.nodes == want);
    CHECK(got.partial == (h.level(j).size() < r));
  }
}

TEST_CASE("shares telescope: node i gets w_i / sum w of the keys", "[hierarchy][balance]") {
  const ClusterView v = parse(R"({"hierarchy": ["zone", "rack"], "nodes": [
    {"id": "a", "zone": "z1", "rack": "r1", "weight": 1}, {"id": "b", "zone": "z1", "rack": "r1", "weight": 3},
    {"id": "c", "zone": "z1", "rack": "r2", "weight": 2}, {"id": "d", "zone": "z2", "rack": "r1", "weight": 4},
    {"id": "e", "zone": "z3", "rack": "r9", "weight": 0.5}, {"id": "f", "zone": "z3", "rack": "r9", "weight": 1.5}]})");
  const std::size_t keys = hrw::test::scaled(120000);
  std::vector<double> count(v.size());
  for (std::size_t i = 0; i < keys; ++i) count[reference::owner(v, "user:" + std::to_string(i))] += 1;
  double chi2 = 0;
  for (std::uint32_t i = 0; i < v.size(); ++i) {
    const double expected = keys * v.share(i);
    chi2 += (count[i] - expected) * (count[i] - expected) / expected;
  }
  CHECK(chi2 < 20.5);  // 5 degrees of freedom: p = 0.001
}

TEST_CASE("hrw select shows the path, --hierarchy overrides the file, refusals exit 2",
          "[hierarchy][cli]") {
  using hrw::test::run_hrw;
  hrw::test::TempDir dir;
  const std::string file = dir.write("tree.json", R"({"version": 3, "hierarchy": ["zone", "rack"], "nodes": [
    {"id": "n1", "zone": "eu-1a", "rack": "r1"}, {"id": "n2", "zone": "eu-1a", "rack": "r1"},
    {"id": "n3", "zone": "eu-1a", "rack": "r2"}, {"id": "n4", "zone": "eu-1b", "rack": "r1"},
    {"id": "n5", "zone": "eu-1b", "rack": "r3", "weight": 2}]})");
  const ClusterView view(load_cluster_file(file));
  for (const std::string key : {"user:1", "user:2", "", "k,\n"}) {
    auto res = run_hrw({"select", key, "--cluster", file, "--format", "json"});
    REQUIRE(res.exit_code == 0);
    const auto j = nlohmann::json::parse(res.out);
    const auto path = reference::owner_path(view, key);
    REQUIRE(j["path"].size() == 2);
    for (std::size_t l = 0; l < 2; ++l) {
      CHECK(j["path"][l]["level"] == view.hierarchy()->labels()[l]);
      CHECK(j["path"][l]["bucket"] == view.hierarchy()->level(l)[path[l].bucket].name);
      CHECK(j["path"][l]["score"].get<double>() == path[l].score);
    }
    CHECK(j["owner"] == view.node(reference::owner(view, key)).id);
  }
  auto res = run_hrw({"select", "user:1", "--cluster", file});
  REQUIRE(res.exit_code == 0);
  CHECK_THAT(res.out, Contains("level 1 \"zone\"") && Contains("level 2 \"rack\""));
  // Flattened from the command line: no path, the flat owner.
  res = run_hrw({"select", "user:1", "--cluster", file, "--hierarchy", "zone", "--format", "json"});
  REQUIRE(res.exit_code == 0);
  CHECK(nlohmann::json::parse(res.out)["path"].size() == 1);
  for (const auto& [args, message] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           // The list's own faults name --hierarchy, not the cluster file.
           {{"--hierarchy", ""}, "hrw: --hierarchy: an empty value (a variable left unset?)"},
           {{"--hierarchy", "zone,zone"}, "hrw: --hierarchy: label \"zone\" is repeated (levels 1 and 2)\n"},
           {{"--hierarchy", "zone,host"}, "node \"n1\" lacks hierarchy label \"host\""},
           {{"--replicas", "2", "--distinct", "host"}, "--distinct \"host\" is not a level"}}) {
    std::vector<std::string> argv{"select", "k", "--cluster", file};
    argv.insert(argv.end(), args.begin(), args.end());
    res = run_hrw(argv);
    INFO(res.err);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    CHECK_THAT(res.err, Contains(message));
  }
}
