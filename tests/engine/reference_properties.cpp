// Properties of the scalar reference over many random clusters and keys (contract §3).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <set>

#include "hrw/errors.hpp"
#include "hrw/reference.hpp"
#include "random_cluster.hpp"

using namespace hrw;
using hrw::test::random_bytes;
using hrw::test::random_cluster;

namespace {

std::vector<std::string> ranked_ids(const ClusterView& view, std::string_view key) {
  std::vector<std::string> ids;
  for (auto& s : reference::rank(view, key)) ids.push_back(view.node(s.node).id);
  return ids;
}

std::string owner_id(const ClusterView& view, std::string_view key) {
  return view.node(reference::owner(view, key)).id;
}

}  // namespace

TEST_CASE("the ranking ignores the order nodes are listed in", "[reference][property]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    ClusterSpec spec = random_cluster(rng, {.weighted = trial % 2 == 1});
    ClusterSpec shuffled = spec;
    std::shuffle(shuffled.nodes.begin(), shuffled.nodes.end(), rng);
    const ClusterView a(spec), b(shuffled);
    for (int k = 0; k < 20; ++k) {
      const std::string key = random_bytes(rng, 0, 24);
      REQUIRE(ranked_ids(a, key) == ranked_ids(b, key));
    }
  }
}

TEST_CASE("adding a node moves only the keys the new node wins", "[reference][property]") {
  std::mt19937_64 rng(12);
  for (int trial = 0; trial < 100; ++trial) {
    ClusterSpec spec = random_cluster(rng, {.weighted = trial % 2 == 1});
    ClusterSpec grown = spec;
    grown.nodes.push_back({"added-node", trial % 2 ? std::optional<double>(1.5) : std::nullopt, {}});
    const ClusterView before(spec), after(grown);
    for (int k = 0; k < 100; ++k) {
      const std::string key = random_bytes(rng, 0, 24);
      const std::string was = owner_id(before, key), now = owner_id(after, key);
      if (was != now) REQUIRE(now == "added-node");
    }
  }
}

TEST_CASE("removing a node moves only the keys it owned", "[reference][property]") {
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 100; ++trial) {
    ClusterSpec spec = random_cluster(rng, {.min_nodes = 2, .weighted = trial % 2 == 1});
    ClusterSpec shrunk = spec;
    const std::string removed = shrunk.nodes[rng() % shrunk.nodes.size()].id;
    std::erase_if(shrunk.nodes, [&](const NodeSpec& n) { return n.id == removed; });
    const ClusterView before(spec), after(shrunk);
    for (int k = 0; k < 100; ++k) {
      const std::string key = random_bytes(rng, 0, 24);
      const std::string was = owner_id(before, key), now = owner_id(after, key);
      if (was != now) REQUIRE(was == removed);
    }
  }
}

TEST_CASE("top-R is a prefix of the ranking, owner is rank 1", "[reference][property]") {
  std::mt19937_64 rng(14);
  for (int trial = 0; trial < 200; ++trial) {
    const ClusterView view(random_cluster(rng, {.weighted = trial % 3 == 0}));
    const std::string key = random_bytes(rng, 0, 24);
    const auto ranking = reference::rank(view, key);
    REQUIRE(reference::owner(view, key) == ranking[0].node);
    for (std::uint32_t r = 1; r <= std::min<std::size_t>(view.size(), 6); ++r) {
      const auto top = reference::top_r(view, key, r);
      REQUIRE(top.size() == r);
      for (std::uint32_t i = 0; i < r; ++i) REQUIRE(top[i] == ranking[i].node);
    }
  }
}

TEST_CASE("distinct-domain replicas share no label value and are the first acceptable",
          "[reference][property]") {
  std::mt19937_64 rng(15);
  for (int trial = 0; trial < 300; ++trial) {
    const ClusterView view(random_cluster(rng, {.weighted = trial % 2 == 1}));
    const std::string key = random_bytes(rng, 0, 24);
    const std::uint32_t domains = view.domain_count("zone");
    const std::uint32_t r = 1 + static_cast<std::uint32_t>(rng() % std::min<std::size_t>(view.size(), 5));
    if (domains < r) {
      REQUIRE_THROWS_AS(reference::top_r_distinct(view, key, r, "zone", false), InputError);
      const auto partial = reference::top_r_distinct(view, key, r, "zone", true);
      REQUIRE(partial.partial);
      REQUIRE(partial.nodes.size() == domains);
      continue;
    }
    const auto got = reference::top_r_distinct(view, key, r, "zone", false);
    REQUIRE_FALSE(got.partial);
    REQUIRE(got.nodes.size() == r);
    // No two accepted nodes share a zone (a node without one is its own domain).
    std::set<std::string> zones;
    for (auto n : got.nodes)
      if (auto z = view.node(n).label("zone")) REQUIRE(zones.insert(std::string(*z)).second);
    // Every node ranked above the last accepted one and not accepted shares a zone with an
    // accepted node ranked before it: the accepted ones are the first acceptable.
    const auto ranking = reference::rank(view, key);
    std::size_t next = 0;
    std::set<std::string> taken;
    for (auto& s : ranking) {
      if (next == r) break;
      auto z = view.node(s.node).label("zone");
      if (z && taken.count(std::string(*z))) continue;
      REQUIRE(got.nodes[next++] == s.node);
      if (z) taken.insert(std::string(*z));
    }
  }
}

TEST_CASE("balance: fnv1a-fmix is within 3% of fair, raw fnv1a skews as documented",
          "[reference][balance]") {
  std::vector<std::string> ids;
  for (int i = 0; i < 10; ++i) ids.push_back("node-" + std::to_string(i));
  auto shares = [&](HashMode mode) {
    ClusterSpec spec = cluster_from_id_list("node-0,node-1,node-2,node-3,node-4,node-5,node-6,node-7,node-8,node-9");
    spec.hash = mode;
    const ClusterView view(spec);
    std::map<std::string, double> count;
    for (int k = 0; k < 200000; ++k)
      count[owner_id(view, "user:" + std::to_string(k))] += 1;
    for (auto& [id, c] : count) c = c / 20000.0;  // ratio to the fair share
    return count;
  };
  const auto mixed = shares(HashMode::fnv1a_fmix);
  for (auto& id : ids) {
    INFO(id);
    CHECK(mixed.at(id) == Approx(1.0).margin(0.03));
  }
  // README and docs: raw FNV-1a gives node-8 and node-9 ~2.44x and node-0..7 ~0.62-0.65x
  // on this input (the contract's 2.2x / 0.57x could not be reproduced; see docs).
  const auto raw = shares(HashMode::fnv1a);
  CHECK(raw.at("node-8") == Approx(2.44).margin(0.05));
  CHECK(raw.at("node-9") == Approx(2.44).margin(0.05));
  for (int i = 0; i <= 7; ++i) CHECK(raw.at(ids[i]) == Approx(0.64).margin(0.03));
}

TEST_CASE("raw fnv1a skews ids that differ in the last byte: cache-a..d", "[reference][balance]") {
  auto count = [](HashMode mode) {
    ClusterSpec spec = cluster_from_id_list("cache-a,cache-b,cache-c,cache-d");
    spec.hash = mode;
    const ClusterView view(spec);
    std::vector<double> c(4, 0);
    for (int k = 0; k < 200000; ++k) c[reference::owner(view, "user:" + std::to_string(k))] += 1;
    for (double& x : c) x /= 50000.0;
    return c;
  };
  const auto raw = count(HashMode::fnv1a);
  CHECK(raw[3] == Approx(2.0).margin(0.05));  // cache-d
  CHECK(raw[1] == Approx(0.5).margin(0.03));  // cache-b
  CHECK(raw[2] == Approx(0.5).margin(0.03));  // cache-c
  for (double share : count(HashMode::fnv1a_fmix)) CHECK(share == Approx(1.0).margin(0.02));
}

TEST_CASE("weighted shares follow w / sum(w) (chi-square, p > 0.001)", "[reference][weighted]") {
  ClusterSpec spec = cluster_from_id_list("w1,w2,w3,w4");
  apply_weight_list(spec, "1,2,3,4");
  const ClusterView view(spec);
  std::vector<double> observed(4, 0);
  const int keys = 400000;
  for (int k = 0; k < keys; ++k) observed[reference::owner(view, "key-" + std::to_string(k))] += 1;
  double chi2 = 0;
  for (std::uint32_t i = 0; i < 4; ++i) {
    const double expected = keys * view.share(i);
    chi2 += (observed[i] - expected) * (observed[i] - expected) / expected;
  }
  INFO("chi-square " << chi2);
  CHECK(chi2 < 16.266);  // 3 degrees of freedom, p = 0.001
}
