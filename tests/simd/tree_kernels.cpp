// The batch engine on hierarchical views (contract §6) against the scalar reference, on
// every runnable SIMD target: random hierarchies (1-4 levels, uneven fan-out, one-node
// buckets, '/' and '=' in values, weighted or not), R 1-8, distinct at any level, partial.
#include <catch2/catch.hpp>

#include <random>
#include <string>

#include "hrw/det_math.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/targets.hpp"
#include "random_hierarchy.hpp"
#include "test_scale.hpp"

using namespace hrw;

namespace {

KeyBatch random_keys(std::mt19937_64& rng, std::size_t n) {
  KeyBatch keys;
  for (std::size_t i = 0; i < n; ++i) {
    std::string key(rng() % 24, '\0');  // the empty key included
    for (char& c : key) c = static_cast<char>(rng());
    keys.add(key);
  }
  return keys;
}

// A random valid request: R up to 8 (and the node count), distinct at a random level or
// none, partial results allowed whenever that level has fewer than R buckets.
PlaceOptions random_request(std::mt19937_64& rng, const ClusterView& v) {
  PlaceOptions o;
  o.threads = 1;
  o.with_scores = rng() % 2 == 0;
  const auto most = static_cast<std::uint32_t>(std::min<std::size_t>(8, v.size()));
  o.replicas = rng() % 3 == 0 ? 1 : 1 + static_cast<std::uint32_t>(rng() % most);
  if (rng() % 2 == 0) {
    const Hierarchy& h = *v.hierarchy();
    o.distinct_label = h.labels()[rng() % h.depth()];
    o.allow_partial = v.domain_count(o.distinct_label) < o.replicas;
  }
  return o;
}

// What the reference says for one key: nodes, then kNoNode up to R.
std::vector<std::uint32_t> expected(const ClusterView& v, std::string_view key,
                                    const PlaceOptions& o) {
  std::vector<std::uint32_t> want =
      o.distinct_label.empty()
          ? reference::top_r(v, key, o.replicas)
          : reference::top_r_distinct(v, key, o.replicas, o.distinct_label, o.allow_partial).nodes;
  want.resize(o.replicas, kNoNode);
  return want;
}

}  // namespace

TEST_CASE("tree engine equals the reference on random hierarchies, every target",
          "[hierarchy][kernels]") {
  std::mt19937_64 rng(2026);
  std::size_t checked = 0;
  for (std::size_t t = 0; t < hrw::test::scaled(40, hrw::test::kEmulatedScale); ++t) {
    const ClusterView v(hrw::test::random_hierarchy(rng, 300, t % 2 == 1));
    const KeyBatch keys = random_keys(rng, 1 + rng() % 300);
    const PlaceOptions o = random_request(rng, v);
    INFO("trial " << t << ": " << v.size() << " nodes, depth " << v.hierarchy()->depth()
                  << ", R " << o.replicas << ", distinct '" << o.distinct_label << "'");
    for (const SimdTarget& target : runnable_targets()) {
      const ScopedTarget on(target.bits);
      INFO("target " << target.name);
      const Placement got = place(v, keys, o);
      REQUIRE(got.nodes.size() == keys.size() * o.replicas);
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::vector<std::uint32_t> want = expected(v, keys[i], o);
        for (std::uint32_t j = 0; j < o.replicas; ++j) {
          REQUIRE(got.node(i, j) == want[j]);
          if (o.with_scores && want[j] != kNoNode)
            REQUIRE(got.scores[i * o.replicas + j] ==
                    reference::score_pair(v, keys[i], want[j]).score);
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("tree engine: many chunks on many threads equal the reference engine",
          "[hierarchy][kernels]") {
  std::mt19937_64 rng(9);
  for (int t = 0; t < 4; ++t) {
    const ClusterView v(hrw::test::random_hierarchy(rng, 400, t % 2 == 0));
    const KeyBatch keys = random_keys(rng, hrw::test::scaled(20000, hrw::test::kEmulatedScale));
    PlaceOptions o = random_request(rng, v);
    o.threads = 0;
    const Placement got = place(v, keys, o);
    o.engine = Engine::reference;
    const Placement want = place(v, keys, o);
    CHECK(got.nodes == want.nodes);
    CHECK(got.scores == want.scores);
    CHECK(got.partial == want.partial);
  }
}

TEST_CASE("tree engine: one-node racks, R beyond a bucket's children, partial results",
          "[hierarchy][kernels]") {
  // Racks named alike in two zones are two domains; a one-node rack offers one node to a
  // top-R list, so the list continues in the next bucket.
  const ClusterView v(parse_cluster_json(R"({"hierarchy": ["zone", "rack"], "nodes": [
    {"id": "a", "zone": "z=1", "rack": "r/1"}, {"id": "b", "zone": "z=1", "rack": "r/2"},
    {"id": "c", "zone": "z=1", "rack": "r/2"}, {"id": "d", "zone": "z/2", "rack": "r/1"}]})",
                                         "t.json"));
  std::mt19937_64 rng(5);
  const KeyBatch keys = random_keys(rng, 500);
  for (std::uint32_t r = 1; r <= 4; ++r)
    for (const char* label : {"", "zone", "rack"}) {
      PlaceOptions o;
      o.replicas = r;
      o.distinct_label = label;
      o.allow_partial = true;
      const Placement got = place(v, keys, o);
      for (std::size_t i = 0; i < keys.size(); ++i)
        for (std::uint32_t j = 0; j < r; ++j) REQUIRE(got.node(i, j) == expected(v, keys[i], o)[j]);
    }
}

TEST_CASE("equal-weight siblings: ranking buckets by r is ranking by det::ln(u)/W",
          "[hierarchy][kernels]") {
  // The tree engine ranks sibling buckets of one weight by r; that needs det::weighted_key
  // strictly increasing in r for a fixed W (ties then coincide: equal keys iff equal r).
  std::mt19937_64 rng(11);
  for (double w : {1.0, 3.0, 100.0, 1e4, 1e15 * 1e6}) {
    auto check_run = [&](std::uint64_t from, std::uint64_t count) {
      double previous = det::weighted_key(static_cast<std::uint32_t>(from), w);
      for (std::uint64_t r = from + 1; r < from + count; ++r) {
        const double k = det::weighted_key(static_cast<std::uint32_t>(r), w);
        REQUIRE(k > previous);
        previous = k;
      }
    };
    check_run(0, 1 << 16);
    check_run((std::uint64_t{1} << 32) - (1 << 16), 1 << 16);
    for (int i = 0; i < 64; ++i) check_run(rng() % ((std::uint64_t{1} << 32) - 4096), 4096);
  }
  // Uniform trees (every sibling of one weight), unweighted and with a weight pattern that
  // repeats per rack, against the reference on every target.
  for (bool weighted : {false, true}) {
    ClusterSpec spec;
    spec.hierarchy = std::vector<std::string>{"zone", "rack"};
    for (int i = 0; i < 4 * 3 * 5; ++i) {
      NodeSpec n;
      n.id = "n" + std::to_string(i);
      n.labels = {{"zone", "z" + std::to_string(i / 15)}, {"rack", "r" + std::to_string(i / 5 % 3)}};
      if (weighted) n.weight = 1.0 + 0.5 * (i % 5);
      spec.nodes.push_back(n);
    }
    const ClusterView v(spec);
    const KeyBatch keys = random_keys(rng, 2000);
    for (const SimdTarget& target : runnable_targets()) {
      const ScopedTarget on(target.bits);
      for (const char* label : {"", "zone", "rack"})
        for (std::uint32_t r = 1; r <= 3; ++r) {
          PlaceOptions o;
          o.replicas = r;
          o.distinct_label = label;
          o.with_scores = true;
          const Placement got = place(v, keys, o);
          for (std::size_t i = 0; i < keys.size(); ++i) {
            const auto want = expected(v, keys[i], o);
            for (std::uint32_t j = 0; j < r; ++j) {
              REQUIRE(got.node(i, j) == want[j]);
              REQUIRE(got.scores[i * r + j] == reference::score_pair(v, keys[i], want[j]).score);
            }
          }
        }
    }
  }
}
