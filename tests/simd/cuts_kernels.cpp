// Contract §9 on the batch engine: every runnable SIMD target (one view and the fused plan
// of two; R = 1, R > 1 and distinct) against the reference placement with cuts, bit for bit,
// overflow counted.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <random>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/targets.hpp"
#include "random_cluster.hpp"

using namespace hrw;

namespace {

// Cuts of several kinds: none on some nodes, a few percent of pairs failing, most failing,
// and the highest cut (nothing clears unless r = 2^32 - 1).
void add_cuts(std::mt19937_64& rng, ClusterSpec& spec, int mode) {
  for (NodeSpec& n : spec.nodes) {
    const unsigned pick = static_cast<unsigned>(rng() % 4);
    if (mode == 0) n.cut = pick == 0 ? 0 : static_cast<std::uint32_t>(rng() % (1u << 28));  // ~3%
    else if (mode == 1) n.cut = pick == 0 ? 0 : static_cast<std::uint32_t>(rng());
    else n.cut = pick == 0 ? 0xFFFFFFFFu : 0xF0000000u + static_cast<std::uint32_t>(rng() % (1u << 28));
  }
  if (std::all_of(spec.nodes.begin(), spec.nodes.end(), [](const NodeSpec& n) { return n.cut == 0; }))
    spec.nodes[0].cut = 1u << 30;
}

KeyBatch random_keys(std::mt19937_64& rng, std::size_t count) {
  KeyBatch keys;
  for (std::size_t i = 0; i < count; ++i) keys.add(test::random_bytes(rng, 0, 24));
  return keys;
}

struct Want {
  std::vector<std::uint32_t> nodes;
  std::vector<double> scores;
  std::uint64_t overflow = 0;
};

// Written from §9 with the reference, key by key (not through the batch engine).
Want want_of(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& o) {
  Want w;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto c = reference::place_with_cuts(view, keys[i], o.replicas, o.distinct_label, o.allow_partial);
    for (std::uint32_t j = 0; j < o.replicas; ++j) {
      const std::uint32_t n = j < c.nodes.size() ? c.nodes[j] : kNoNode;
      w.nodes.push_back(n);
      w.scores.push_back(n == kNoNode ? 0.0 : reference::score_pair(view, keys[i], n).score);
    }
    w.overflow += c.overflow;
  }
  return w;
}

void require_same(const Want& want, const Placement& got, const std::string& what) {
  INFO(what << " target " << active_target().name);
  REQUIRE(got.nodes == want.nodes);
  REQUIRE(got.scores.size() == want.scores.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.scores.size(); ++i)
    bad += std::bit_cast<std::uint64_t>(got.scores[i]) != std::bit_cast<std::uint64_t>(want.scores[i]);
  REQUIRE(bad == 0);
  REQUIRE(got.overflow == want.overflow);
}

}  // namespace

TEST_CASE("cuts: the SIMD engine equals the reference on every target", "[cuts][kernels]") {
  std::mt19937_64 rng(2100);
  std::uint64_t overflow_seen = 0;
  for (int round = 0; round < 36; ++round) {
    test::RandomClusterOptions o;
    o.weighted = round % 2;
    o.max_nodes = round % 6 == 5 ? 300 : 40;
    o.shared_prefix = round % 3 != 0;
    ClusterSpec spec = test::random_cluster(rng, o);
    add_cuts(rng, spec, round % 3);
    const ClusterView view(spec);
    const KeyBatch keys = random_keys(rng, 300 + rng() % 700);
    // For the fused plan: a changed copy (nodes added, removed, reweighted; other cuts, or
    // none: cuts in one view only).
    ClusterSpec changed = test::changed_cluster(rng, spec, test::kAdd | test::kRemove | test::kReweight);
    add_cuts(rng, changed, (round + 1) % 3);
    if (round % 5 == 0)
      for (NodeSpec& n : changed.nodes) n.cut = 0;
    if (round % 5 == 1)  // the common nodes keep their cuts: the fused plan's shared list has cuts
      for (NodeSpec& n : changed.nodes)
        for (const NodeSpec& m : spec.nodes)
          if (m.id == n.id) n.cut = m.cut;
    const ClusterView b(changed);
    PlaceOptions opt;
    opt.with_scores = true;
    opt.threads = 1;
    // R = 1 (the owner kernels), 2 and 3 (the top-R kernel), with and without distinct.
    const std::uint32_t r = round % 4 < 2 ? 1 : round % 4;
    opt.replicas = static_cast<std::uint32_t>(std::min<std::size_t>({r, view.size(), b.size()}));
    if (round % 8 == 7 || round % 8 == 2) {
      opt.distinct_label = "zone";
      opt.allow_partial = true;
    }
    const Want want = want_of(view, keys, opt);
    overflow_seen += want.overflow;
    for (const auto& target : runnable_targets()) {
      ScopedTarget on(target.bits);
      require_same(want, place(view, keys, opt), "one view");
    }
    const Want want_b = want_of(b, keys, opt);
    for (const auto& target : runnable_targets()) {
      ScopedTarget on(target.bits);
      const PairPlacer pair(view, b, opt);
      if (view.weighted() == b.weighted()) CHECK(pair.fused());
      Placement pa, pb;
      pair.place(keys, pa, pb);
      require_same(want, pa, "pair, view a");
      require_same(want_b, pb, "pair, view b");
    }
  }
  CHECK(overflow_seen > 100);  // the fallback path for undecided keys ran
}

TEST_CASE("cuts: a view whose cuts are all 0 places exactly as without", "[cuts][kernels]") {
  std::mt19937_64 rng(77);
  ClusterSpec spec = test::random_cluster(rng);
  const ClusterView plain(spec);
  for (NodeSpec& n : spec.nodes) n.cut = 0;
  const ClusterView zero(spec);
  CHECK_FALSE(zero.has_cuts());
  const KeyBatch keys = random_keys(rng, 2000);
  PlaceOptions opt;
  opt.with_scores = true;
  const Placement a = place(plain, keys, opt), b = place(zero, keys, opt);
  CHECK(a.nodes == b.nodes);
  CHECK(a.scores == b.scores);
  CHECK(b.overflow == 0);
}
