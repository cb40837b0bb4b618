// Contract §9 (capacity cuts): the cluster field, the reference placement with cuts and the
// reference balanced cuts (deferred acceptance), checked against the contract's own
// statements: order independence, the capacity bound, overflow, ties at a cut.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <unordered_map>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/reference.hpp"
#include "random_cluster.hpp"

using namespace hrw;
using Catch::Matchers::Contains;

namespace {

ClusterView parse(const std::string& text) { return ClusterView(parse_cluster_json(text, "c.json")); }

std::string refused(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(accepted)";
}

ClusterView nodes_view(std::size_t n, bool weighted = false) {
  ClusterSpec spec;
  for (std::size_t i = 0; i < n; ++i) {
    NodeSpec node;
    node.id = "node-" + std::to_string(i);
    if (weighted) node.weight = 1.0 + static_cast<double>(i % 4);
    node.labels.emplace_back("zone", "z" + std::to_string(i % 3));
    spec.nodes.push_back(node);
  }
  return ClusterView(spec);
}

ClusterView with_cuts(const ClusterView& view, const std::vector<std::uint32_t>& cuts) {
  ClusterSpec spec;
  spec.seed = view.seed();
  spec.hash = view.hash();
  spec.version = view.version();
  for (std::uint32_t i = 0; i < view.size(); ++i) {
    const Node& n = view.node(i);
    NodeSpec s{n.id, n.has_weight ? std::optional<double>(n.weight) : std::nullopt, n.labels, cuts[i]};
    spec.nodes.push_back(s);
  }
  return ClusterView(spec);
}

std::vector<std::string> numbered_keys(std::size_t n, const std::string& prefix = "") {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i) keys.push_back(prefix + std::to_string(i));
  return keys;
}

}  // namespace

TEST_CASE("cuts: the cluster field", "[cuts]") {
  const ClusterView v = parse(R"({"nodes": [{"id": "a", "cut": 0}, {"id": "b", "cut": 4294967295},
                                           {"id": "c", "cut": 12345}, "d"]})");
  CHECK(v.has_cuts());
  CHECK(v.node(0).cut == 0);
  CHECK(v.node(1).cut == 4294967295u);
  CHECK(v.node(2).cut == 12345u);
  CHECK(v.node(3).cut == 0);
  CHECK_FALSE(parse(R"({"nodes": [{"id": "a", "cut": 0}, "b"]})").has_cuts());
  // A zero cut in a hierarchical view is fine; a non-zero one is refused, naming the node.
  CHECK_NOTHROW(parse(R"({"hierarchy": ["zone"], "nodes": [{"id": "a", "zone": "z", "cut": 0}]})"));
  CHECK_THAT(refused(R"({"hierarchy": ["zone"], "nodes": [{"id": "a", "zone": "z"}, {"id": "b", "zone": "z", "cut": 7}]})"),
             Contains("c.json: node \"b\": cut 7 in a hierarchical view"));
  const std::string range = "cut must be an integer from 0 to 4294967295, got ";
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": -1}]})") ==
        "c.json: nodes[0] (\"a\"): " + range + "-1");
  CHECK(refused(R"({"nodes": ["x", {"id": "a", "cut": 4294967296}]})") ==
        "c.json: nodes[1] (\"a\"): " + range + "4294967296");
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": 1.5}]})") == "c.json: nodes[0] (\"a\"): " + range + "1.5");
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": 2.0}]})") == "c.json: nodes[0] (\"a\"): " + range + "2.0");
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": "5"}]})") == "c.json: nodes[0] (\"a\"): " + range + "string");
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": true}]})") == "c.json: nodes[0] (\"a\"): " + range + "boolean");
  CHECK(refused(R"({"nodes": [{"id": "a", "cut": 1e30}]})") == "c.json: nodes[0] (\"a\"): " + range + "1e+30");
  // "cut" is a field, not a label name of a hierarchy.
  CHECK_THAT(refused(R"({"hierarchy": ["cut"], "nodes": [{"id": "a"}]})"), Contains("is not a label name"));
}

TEST_CASE("cuts: all zero places exactly as without cuts", "[cuts]") {
  std::mt19937_64 rng(21);
  for (int round = 0; round < 40; ++round) {
    test::RandomClusterOptions o;
    o.weighted = round % 2;
    const ClusterView view(test::random_cluster(rng, o));
    const std::uint32_t r = 1 + static_cast<std::uint32_t>(rng() % std::min<std::size_t>(view.size(), 4));
    for (int k = 0; k < 50; ++k) {
      const std::string key = test::random_bytes(rng, 0, 20);
      const auto c1 = reference::place_with_cuts(view, key, 1);
      CHECK(c1.nodes == std::vector<std::uint32_t>{reference::owner(view, key)});
      CHECK_FALSE(c1.overflow);
      CHECK(reference::place_with_cuts(view, key, r).nodes == reference::top_r(view, key, r));
      const auto d = reference::top_r_distinct(view, key, r, "zone", true);
      const auto c = reference::place_with_cuts(view, key, r, "zone", true);
      CHECK(c.nodes == d.nodes);
      CHECK(c.partial == d.partial);
    }
  }
}

TEST_CASE("cuts: R = 1 is the argmax over the nodes that clear, else rank 1", "[cuts]") {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 40; ++round) {
    test::RandomClusterOptions o;
    o.weighted = round % 2;
    const ClusterView plain(test::random_cluster(rng, o));
    std::vector<std::uint32_t> cuts(plain.size());
    for (auto& c : cuts) c = rng() % 3 ? static_cast<std::uint32_t>(rng()) : 0;
    const ClusterView view = with_cuts(plain, cuts);
    for (int k = 0; k < 100; ++k) {
      const std::string key = test::random_bytes(rng, 0, 16);
      // Independent: one pass over the nodes, one compare per pair.
      std::uint32_t best = kNoNode;
      reference::PairScore best_s;
      for (std::uint32_t i = 0; i < view.size(); ++i) {
        const auto s = reference::score_pair(view, key, i);
        if (s.r < cuts[i]) continue;
        if (best == kNoNode || reference::ranks_before(view, s, best_s)) {
          best = i;
          best_s = s;
        }
      }
      const auto got = reference::place_with_cuts(view, key, 1);
      REQUIRE(got.nodes.size() == 1);
      if (best == kNoNode) {
        CHECK(got.overflow);
        CHECK(got.nodes[0] == reference::owner(view, key));
      } else {
        CHECK_FALSE(got.overflow);
        CHECK(got.nodes[0] == best);
      }
    }
  }
}

TEST_CASE("cuts: R = 3 distinct, clearing nodes first, then the others, same domains rule", "[cuts]") {
  // 9 nodes in zones z0, z1, z2; every node of zone z0 gets the highest cut: no key clears
  // them unless r = 2^32 - 1, so z0's nodes come only in the second walk.
  const ClusterView plain = nodes_view(9);
  std::vector<std::uint32_t> cuts(9, 0);
  for (std::uint32_t i = 0; i < 9; ++i)
    if (plain.node(i).label("zone") == std::optional<std::string_view>("z0")) cuts[i] = 0xFFFFFFFFu;
  const ClusterView view = with_cuts(plain, cuts);
  const auto zone = [&](std::uint32_t i) { return std::string(*view.node(i).label("zone")); };
  std::size_t keys_z0_first = 0;
  for (const std::string& key : numbered_keys(500, "user:")) {
    const auto got = reference::place_with_cuts(view, key, 3, "zone");
    REQUIRE(got.nodes.size() == 3);
    CHECK(got.overflow);  // only 2 zones clear: the third replica is in z0, after them
    CHECK(zone(got.nodes[2]) == "z0");
    CHECK(zone(got.nodes[0]) != "z0");
    CHECK(zone(got.nodes[1]) != "z0");
    CHECK(zone(got.nodes[0]) != zone(got.nodes[1]));
    // Each is its domain's best-ranked node among those allowed in its walk.
    const auto ranking = reference::rank(view, key);
    for (std::uint32_t chosen : got.nodes)
      for (const auto& s : ranking) {
        if (zone(s.node) != zone(chosen)) continue;
        CHECK(s.node == chosen);  // the first node of that zone in the ranking
        break;
      }
    keys_z0_first += zone(ranking[0].node) == "z0";
    // R = 2 distinct: both clear, no overflow.
    const auto two = reference::place_with_cuts(view, key, 2, "zone");
    CHECK_FALSE(two.overflow);
    CHECK(std::vector<std::uint32_t>(got.nodes.begin(), got.nodes.begin() + 2) == two.nodes);
  }
  CHECK(keys_z0_first > 100);  // the cuts changed the order for about a third of the keys
  // R = 4 distinct with 3 zones: too few domains, refused unless partial.
  CHECK_THROWS_AS(reference::place_with_cuts(view, "k", 4, "zone"), InputError);
  const auto partial = reference::place_with_cuts(view, "k", 4, "zone", true);
  CHECK(partial.partial);
  CHECK(partial.nodes.size() == 3);
}

TEST_CASE("cuts: capacities are floor((1 + eps) x (w_i / sum w) x L) in binary64", "[cuts]") {
  const ClusterView view = nodes_view(7, true);  // weights 1, 2, 3, 4, 1, 2, 3 by id
  const std::uint64_t total = 1000003;
  const auto caps = reference::capacities(view, total, 0.05);
  double sum = 0;
  for (const Node& n : view.nodes()) sum += n.weight;
  REQUIRE(sum == 16.0);
  for (std::uint32_t i = 0; i < view.size(); ++i) {
    const double expect = std::floor(1.05 * (view.node(i).weight / 16.0) * 1000003.0);
    CHECK(caps[i] == static_cast<std::uint64_t>(expect));
  }
  // 1.05 * (1/16) * 1000003 = 65625.196875 in reals; binary64 in that order gives 65625.
  CHECK(caps[view.find("node-0").value()] == 65625);
  CHECK(reference::capacities(view, 0, 0.1) == std::vector<std::uint64_t>(7, 0));
}

namespace {

// The contract's claims about balanced cuts, checked on one outcome.
void check_balanced(const ClusterView& plain, const std::vector<std::string>& keys,
                    const std::vector<std::uint64_t>& loads, double eps,
                    const reference::BalancedCuts& b) {
  const std::size_t n = plain.size();
  REQUIRE(b.cuts.size() == n);
  std::vector<std::uint64_t> load(n, 0), last(n, 0);
  std::vector<std::uint32_t> lowest_r(n, 0xFFFFFFFFu);
  std::uint64_t overflow = 0;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::uint32_t h = b.holder[k];
    if (h == kNoNode) {
      ++overflow;
      continue;
    }
    load[h] += loads[k];
    const std::uint32_t r = reference::score_pair(plain, keys[k], h).r;
    if (r < lowest_r[h] || (r == lowest_r[h])) {
      lowest_r[h] = r;
      last[h] = loads[k];  // (ties: any of them; the bound below allows the largest)
    }
  }
  CHECK(load == b.load);
  CHECK(overflow == b.overflow_keys);
  std::uint64_t total = std::accumulate(loads.begin(), loads.end(), std::uint64_t{0});
  if (eps * static_cast<double>(total) >= static_cast<double>(n)) CHECK(overflow == 0);
  std::uint64_t max_load = 0;
  for (std::uint64_t l : loads) max_load = std::max(max_load, l);
  for (std::size_t i = 0; i < n; ++i) {
    // Below capacity plus one key (the last it holds).
    CHECK(load[i] < b.capacity[i] + std::max<std::uint64_t>(max_load, 1));
    if (b.cuts[i] != 0 && load[i] > 0) CHECK(b.cuts[i] == lowest_r[i]);
  }
  // Placing the same keys with these cuts reproduces the assignment (no ties on r here).
  const ClusterView cut = with_cuts(plain, b.cuts);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const auto p = reference::place_with_cuts(cut, keys[k], 1);
    if (b.holder[k] == kNoNode) CHECK(p.overflow);
    else CHECK(p.nodes[0] == b.holder[k]);
  }
}

}  // namespace

TEST_CASE("cuts: balanced cuts do not depend on key order", "[cuts]") {
  std::mt19937_64 rng(5);
  for (int round = 0; round < 6; ++round) {
    const ClusterView view = nodes_view(5 + round * 3, round % 2);
    std::vector<std::string> keys = numbered_keys(600 + 100 * round, "slot-");
    std::vector<std::uint64_t> loads(keys.size(), 1);
    if (round >= 3)
      for (auto& l : loads) l = 1 + rng() % 1000;  // sizes
    const double eps = round % 3 == 0 ? 0.0 : round % 3 == 1 ? 0.02 : 0.1;
    const auto b = reference::balanced_cuts(view, keys, loads, eps);
    check_balanced(view, keys, loads, eps, b);
    std::size_t cut_nodes = 0;
    for (auto c : b.cuts) cut_nodes += c != 0;
    CHECK(cut_nodes > 0);  // the bound binds somewhere
    // Shuffled: the same cuts and the same holder of every key.
    std::vector<std::size_t> order(keys.size());
    std::iota(order.begin(), order.end(), 0);
    for (int s = 0; s < 3; ++s) {
      std::shuffle(order.begin(), order.end(), rng);
      std::vector<std::string> k2;
      std::vector<std::uint64_t> l2;
      for (std::size_t i : order) {
        k2.push_back(keys[i]);
        l2.push_back(loads[i]);
      }
      const auto b2 = reference::balanced_cuts(view, k2, l2, eps);
      CHECK(b2.cuts == b.cuts);
      CHECK(b2.load == b.load);
      for (std::size_t j = 0; j < order.size(); ++j) CHECK(b2.holder[j] == b.holder[order[j]]);
    }
  }
}

TEST_CASE("cuts: balanced cuts bound the load, plain rendezvous does not", "[cuts]") {
  const ClusterView view = nodes_view(16);
  const std::vector<std::string> keys = numbered_keys(2048);
  const std::vector<std::uint64_t> loads(keys.size(), 1);
  const auto b = reference::balanced_cuts(view, keys, loads, 0.05);
  check_balanced(view, keys, loads, 0.05, b);
  std::vector<std::uint64_t> plain(16, 0);
  for (const auto& k : keys) ++plain[reference::owner(view, k)];
  const double target = 2048.0 / 16;
  const double plain_peak = *std::max_element(plain.begin(), plain.end()) / target;
  const double cut_peak = *std::max_element(b.load.begin(), b.load.end()) / target;
  CHECK(plain_peak > 1.1);
  CHECK(cut_peak <= 1.05 + 1e-12);  // unit loads: load <= capacity = floor(1.05 * 128)
  CHECK(b.overflow_keys == 0);
}

TEST_CASE("cuts: a key larger than its node's capacity is held, overflow when eps L < N", "[cuts]") {
  const ClusterView view = nodes_view(4);
  std::vector<std::string> keys = numbered_keys(40, "k");
  std::vector<std::uint64_t> loads(keys.size(), 1);
  loads[7] = 1000;  // far above any capacity (L = 1039, capacity of each about 259)
  const auto b = reference::balanced_cuts(view, keys, loads, 0.0);
  const std::uint32_t big = b.holder[7];
  REQUIRE(big != kNoNode);
  // The big key is held where it first proposed unless a higher-r key fills the node first.
  CHECK(b.load[big] >= 1000);
  check_balanced(view, keys, loads, 0.0, b);
  // eps = 0 with unit loads and L not divisible by N: capacities floor(L/N) leave keys over.
  const std::vector<std::string> k2 = numbered_keys(43, "k");
  const auto b2 = reference::balanced_cuts(view, k2, std::vector<std::uint64_t>(43, 1), 0.0);
  CHECK(b2.overflow_keys == 3);  // 4 nodes x floor(43 / 4) = 40 held
  check_balanced(view, k2, std::vector<std::uint64_t>(43, 1), 0.0, b2);
  // Capacity 0 everywhere (L = 0): every key is overflow, every cut the highest.
  const auto b3 = reference::balanced_cuts(view, k2, std::vector<std::uint64_t>(43, 0), 0.5);
  CHECK(b3.overflow_keys == 43);
  CHECK(b3.cuts == std::vector<std::uint32_t>(4, 0xFFFFFFFFu));
}

TEST_CASE("cuts: ties at a cut - two keys with the same r at every node", "[cuts]") {
  // Two keys with equal FNV-1a states after seed ‖ key tie on r at every node (found by a
  // birthday search over "t<number>").
  std::unordered_map<std::uint32_t, std::string> seen;
  std::string a, b;
  for (std::uint64_t i = 0; a.empty(); ++i) {
    std::string key = "t" + std::to_string(i);
    auto [it, fresh] = seen.emplace(fnv1a32(key), key);
    if (!fresh) {
      a = it->second;
      b = key;
    }
  }
  REQUIRE(a != b);
  const ClusterView view = nodes_view(2);
  CHECK(reference::rank(view, a)[0].r == reference::rank(view, b)[0].r);
  // Capacity 1 each (L = 2, eps = 0): the memcmp-smaller key is held by the first choice,
  // the other goes to the second node; the first node's cut is the shared r, which both
  // keys clear: placing with the cuts puts both there (the contract's stated exception).
  const std::vector<std::string> keys{a, b};
  const auto out = reference::balanced_cuts(view, keys, {1, 1}, 0.0);
  const std::uint32_t first = reference::owner(view, a);
  const std::size_t smaller = id_less(a, b) ? 0 : 1;
  CHECK(out.holder[smaller] == first);
  CHECK(out.holder[1 - smaller] == 1 - first);
  CHECK(out.cuts[first] == reference::score_pair(view, a, first).r);
  const ClusterView cut = with_cuts(view, out.cuts);
  CHECK(reference::place_with_cuts(cut, a, 1).nodes[0] == first);
  CHECK(reference::place_with_cuts(cut, b, 1).nodes[0] == first);
  // Either order of proposals gives the same outcome.
  const auto swapped = reference::balanced_cuts(view, {b, a}, {1, 1}, 0.0);
  CHECK(swapped.cuts == out.cuts);
  CHECK(swapped.holder[1 - smaller] == first);
}
