// The SIMD batch engine against the scalar reference, on every runnable target.
// HRW_TEST_SCALE (default 1) multiplies the random-input counts.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "hrw/cluster_view.hpp"
#include "hrw/det_math.hpp"
#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/targets.hpp"
#include "hrw/verify.hpp"
#include "kernel_api.hpp"
#include "node_trie.hpp"
#include "random_cluster.hpp"
#include "test_scale.hpp"

namespace {

using namespace hrw;

using test::scaled;
using test::test_scale;

// Restores run-time target detection when a test ends, even on failure.
struct TargetGuard {
  ~TargetGuard() { force_target(0); }
};

KeyBatch random_keys(std::mt19937_64& rng, std::size_t count, std::size_t max_len = 40) {
  KeyBatch keys;
  for (std::size_t i = 0; i < count; ++i) keys.add(test::random_bytes(rng, 0, max_len));
  return keys;
}

std::uint64_t bits_of(double d) { return std::bit_cast<std::uint64_t>(d); }

// Compares a SIMD placement with the reference engine key by key, bit for bit.
void require_same(const ClusterView& view, const KeyBatch& keys, PlaceOptions o,
                  const std::string& what) {
  o.engine = Engine::reference;
  const Placement want = place(view, keys, o);
  o.engine = Engine::simd;
  const Placement got = place(view, keys, o);
  INFO(what << " target " << active_target().name << " nodes " << view.size() << " keys "
            << keys.size() << " R " << o.replicas << " label '" << o.distinct_label << "'"
            << (view.weighted() ? " weighted" : "") << " hash " << to_string(view.hash())
            << " threads " << o.threads);
  REQUIRE(got.replicas == want.replicas);
  REQUIRE(got.partial == want.partial);
  REQUIRE(got.nodes.size() == keys.size() * o.replicas);
  REQUIRE(got.scores.size() == want.scores.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.nodes.size(); ++i) {
    if (got.nodes[i] != want.nodes[i]) ++bad;
    if (!want.scores.empty() && bits_of(got.scores[i]) != bits_of(want.scores[i])) ++bad;
  }
  REQUIRE(bad == 0);
}

// A PairPlacer's two placements against each view's reference placement, bit for bit, on
// every runnable target (the references are computed once).
void require_same_pair(const ClusterView& a, const ClusterView& b, const KeyBatch& keys,
                       PlaceOptions o, const std::string& what) {
  o.engine = Engine::reference;
  const Placement want_a = place(a, keys, o), want_b = place(b, keys, o);
  o.engine = Engine::simd;
  for (const auto& target : runnable_targets()) {
    force_target(target.bits);
    const PairPlacer pair(a, b, o);
    INFO(what << " target " << active_target().name << " nodes " << a.size() << " -> "
              << b.size() << " keys " << keys.size() << " R " << o.replicas << " label '"
              << o.distinct_label << "'" << (a.weighted() ? " weighted" : "")
              << (pair.fused() ? " fused" : " two placements") << " threads " << o.threads);
    Placement got_a, got_b;
    pair.place(keys, got_a, got_b);
    for (const auto* p : {&want_a, &want_b}) {
      const Placement& got = p == &want_a ? got_a : got_b;
      REQUIRE(got.partial == p->partial);
      REQUIRE(got.nodes == p->nodes);
      REQUIRE(got.scores.size() == p->scores.size());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < got.scores.size(); ++i)
        bad += bits_of(got.scores[i]) != bits_of(p->scores[i]);
      REQUIRE(bad == 0);
    }
  }
}

// Two ids whose FNV-1a states collide after `state` (c1 < c2 in memcmp order): fmix32 is
// a bijection, so r ties in both hash modes, and equal weights make the weighted keys tie.
std::pair<std::string, std::string> colliding_ids(std::uint32_t state) {
  std::unordered_map<std::uint32_t, std::string> seen;
  for (std::uint32_t i = 0;; ++i) {
    std::string id = "t" + std::to_string(i);
    auto [it, inserted] = seen.emplace(fnv1a32_continue(state, id), id);
    if (!inserted) return id_less(it->second, id) ? std::pair{it->second, id} : std::pair{id, it->second};
  }
}

}  // namespace

TEST_CASE("targets: compiled, runnable, forced and restored", "[kernels][targets]") {
  TargetGuard guard;
  const auto compiled = compiled_targets();
  const auto runnable = runnable_targets();
  REQUIRE(!compiled.empty());
  REQUIRE(!runnable.empty());
  for (const auto& t : runnable) {
    CHECK(std::any_of(compiled.begin(), compiled.end(), [&](auto& c) { return c.bits == t.bits; }));
    force_target(t.bits);
    CHECK(active_target().bits == t.bits);
    CHECK(active_target().name == t.name);
  }
  force_target(0);
  CHECK(active_target().bits == runnable.front().bits);
  CHECK_THROWS(force_target(std::int64_t{1} << 40));
}

TEST_CASE("trie program: one leaf per node in index order, FNV of every id", "[kernels][trie]") {
  std::mt19937_64 rng(7);
  const std::vector<std::vector<std::string>> fixed = {
      {"a"},
      {"a", "ab", "abc"},
      {"a", "ab", "abc", "abd", "b", "ba"},
      {std::string("\x00", 1), std::string("\x00\x00", 2), "\xFF", "\xFF\xFF", "\xFF\xFF\xFE"},
      {"node-0", "node-1", "node-10", "node-100", "node-11", "node-2"},
  };
  auto check = [&](std::vector<std::string> ids) {
    std::sort(ids.begin(), ids.end(), [](auto& a, auto& b) { return id_less(a, b); });
    ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
    std::vector<std::string_view> views(ids.begin(), ids.end());
    const auto program = kernels::build_trie_program(views);
    REQUIRE(program.leaves == ids.size());
    std::uint32_t next = 0;
    for (const auto& op : program.ops)
      if (op.kind == kernels::kLeaf) REQUIRE(op.node == next++);
    const std::uint32_t state = static_cast<std::uint32_t>(rng());
    const auto hashes = kernels::run_trie_scalar(program, state);
    for (std::size_t i = 0; i < ids.size(); ++i)
      REQUIRE(hashes[i] == fnv1a32_continue(state, ids[i]));
  };
  for (const auto& ids : fixed) check(ids);
  for (int t = 0; t < 200; ++t) {
    std::vector<std::string> ids;
    const std::size_t n = 1 + rng() % 300;
    for (std::size_t i = 0; i < n; ++i) {
      std::string id = test::random_bytes(rng, 1, 6);
      for (char& c : id) c = "ab\xFF\0"[rng() % 4];  // dense: many shared prefixes
      ids.push_back(id);
    }
    check(ids);
  }
  // Shared prefixes are hashed once: node-000..node-099 costs 6 + 10 + 100 byte steps.
  std::vector<std::string> ids;
  for (int i = 0; i < 100; ++i) ids.push_back(fmt::format("node-{:03}", i));
  std::vector<std::string_view> views(ids.begin(), ids.end());
  const auto program = kernels::build_trie_program(views);
  std::size_t steps = 0;
  for (const auto& op : program.ops) steps += op.length;
  CHECK(steps == 116);
}

TEST_CASE("simd equals reference on every target: random clusters", "[kernels]") {
  TargetGuard guard;
  std::mt19937_64 rng(2024);
  const std::size_t rounds = scaled(12);
  const std::size_t batch_sizes[] = {0, 1, 3, 17, 1000};
  for (const auto& target : runnable_targets()) {
    force_target(target.bits);
    REQUIRE(active_target().bits == target.bits);
    for (std::size_t round = 0; round < rounds; ++round) {
      test::RandomClusterOptions co;
      co.max_nodes = round % 3 == 0 ? 300 : 40;
      co.weighted = round % 2 == 1;
      co.shared_prefix = round % 4 < 2;
      const ClusterView view(test::random_cluster(rng, co));
      const std::size_t count = batch_sizes[round % 5];
      const KeyBatch keys = random_keys(rng, count);
      PlaceOptions o;
      o.with_scores = true;
      o.threads = static_cast<unsigned>(round % 3);  // 0 (default), 1, 2
      require_same(view, keys, o, "owner");
      const auto max_r = static_cast<std::uint32_t>(std::min<std::size_t>(view.size(), 9));
      o.replicas = 1 + static_cast<std::uint32_t>(rng() % max_r);
      o.with_scores = round % 2 == 0;
      require_same(view, keys, o, "top-R");
      o.distinct_label = round % 2 ? "zone" : "rack";
      o.allow_partial = true;
      require_same(view, keys, o, "distinct");
      o.replicas = std::min<std::uint32_t>(view.domain_count(o.distinct_label), o.replicas);
      o.allow_partial = false;
      require_same(view, keys, o, "distinct, enough domains");
    }
  }
}

TEST_CASE("simd key hashing: equal-length fast paths, mixed and long keys", "[kernels][keys]") {
  // The kernel hashes seed ‖ key in SIMD with fast paths for groups of keys of equal length
  // 4, 8, 12 or 16, a masked path for uneven lengths and a scalar path past 64 bytes.
  TargetGuard guard;
  std::mt19937_64 rng(77);
  auto keys_of_lengths = [&](const std::vector<std::size_t>& lengths, std::size_t count) {
    KeyBatch keys;
    for (std::size_t i = 0; i < count; ++i) {
      const std::size_t len = lengths[i % lengths.size()];
      keys.add(test::random_bytes(rng, len, len));
    }
    return keys;
  };
  const std::vector<std::vector<std::size_t>> patterns = {
      {4}, {8}, {12}, {16}, {0}, {1}, {7}, {63}, {64}, {65}, {100}, {16, 16, 16, 15}, {0, 16},
      {3, 70, 8, 12}};
  const std::size_t counts[] = {1, 15, 16, 33, 257};
  for (const auto& target : runnable_targets()) {
    force_target(target.bits);
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      test::RandomClusterOptions co;
      co.max_nodes = 60;
      co.weighted = p % 3 == 0;
      const ClusterView view(test::random_cluster(rng, co));
      PlaceOptions o;
      o.with_scores = true;
      o.threads = 1;
      require_same(view, keys_of_lengths(patterns[p], counts[p % 5]), o, "key lengths");
    }
  }
}

TEST_CASE("simd equals reference: shared-prefix ids, 0xFF bytes, empty seed", "[kernels][trie]") {
  TargetGuard guard;
  std::mt19937_64 rng(99);
  const std::vector<std::vector<std::string>> id_sets = {
      {"a", "ab", "abc"},
      {"a", "ab", "abc", "abcd", "abd", "b", "bb"},
      {"\xFF", "\xFF\xFF", "\xFF\xFF\xFF", std::string("\x00", 1), "a\xFF", "a\xFE"},
      {"node-0", "node-1", "node-10", "node-100", "node-1000", "node-2"},
      {"x"},
  };
  for (const auto& target : runnable_targets()) {
    force_target(target.bits);
    for (const auto& ids : id_sets) {
      for (int variant = 0; variant < 4; ++variant) {
        ClusterSpec spec;
        spec.seed = variant % 2 ? "" : "s\xFF";
        spec.hash = variant < 2 ? HashMode::fnv1a_fmix : HashMode::fnv1a;
        for (std::size_t i = 0; i < ids.size(); ++i) {
          NodeSpec n;
          n.id = ids[i];
          if (variant == 3) n.weight = 0.5 + static_cast<double>(i);
          n.labels.emplace_back("zone", "z" + std::to_string(i % 2));
          spec.nodes.push_back(n);
        }
        const ClusterView view(spec);
        const KeyBatch keys = random_keys(rng, scaled(100), 30);
        PlaceOptions o;
        o.with_scores = true;
        for (std::uint32_t r = 1; r <= std::min<std::size_t>(view.size(), 5); ++r) {
          o.replicas = r;
          o.distinct_label.clear();
          require_same(view, keys, o, "prefix ids");
          o.distinct_label = "zone";
          o.allow_partial = true;
          require_same(view, keys, o, "prefix ids distinct");
        }
      }
    }
  }
}

TEST_CASE("distinct: per-domain maxima then top-R equals walking the ranking", "[kernels][distinct]") {
  // The kernel's formulation, written out with the reference's pair scores: each domain's
  // representative is its best node (ties: smaller index), and the chosen replicas are the
  // best R representatives under (rank key desc, index asc). It must equal
  // reference::top_r_distinct, and the kernels must equal both.
  TargetGuard guard;
  std::mt19937_64 rng(5);
  const auto targets = runnable_targets();
  for (std::size_t round = 0; round < scaled(40); ++round) {
    test::RandomClusterOptions co;
    co.max_nodes = 60;
    co.weighted = round % 2 == 0;
    const ClusterView view(test::random_cluster(rng, co));
    const std::string label = round % 3 ? "zone" : "rack";
    const auto domains = view.domains(label);
    const std::uint32_t domain_count = view.domain_count(label);
    const std::uint32_t r =
        1 + static_cast<std::uint32_t>(rng() % std::min<std::size_t>(view.size(), 6));
    const KeyBatch keys = random_keys(rng, 50);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::vector<reference::PairScore> rep(domain_count);
      std::vector<bool> has(domain_count, false);
      for (std::uint32_t n = 0; n < view.size(); ++n) {
        const auto s = reference::score_pair(view, keys[i], n);
        const auto d = domains[n];
        if (!has[d] || s.rank_key > rep[d].rank_key) rep[d] = s;  // strict: ties keep smaller
        has[d] = true;
      }
      std::sort(rep.begin(), rep.end(), [](auto& a, auto& b) {
        return a.rank_key != b.rank_key ? a.rank_key > b.rank_key : a.node < b.node;
      });
      std::vector<std::uint32_t> mine;
      for (std::size_t j = 0; j < rep.size() && mine.size() < r; ++j) mine.push_back(rep[j].node);
      const auto walk = reference::top_r_distinct(view, keys[i], r, label, true);
      REQUIRE(walk.nodes == mine);
    }
    PlaceOptions o;
    o.replicas = r;
    o.distinct_label = label;
    o.allow_partial = true;
    for (const auto& t : targets) {
      force_target(t.bits);
      require_same(view, keys, o, "distinct proof");
    }
  }
}

TEST_CASE("ties: equal scores rank the smaller id first, also across domains", "[kernels][ties]") {
  // Two ids whose FNV-1a states collide for one key: fmix32 is a bijection, so r ties in
  // both hash modes, and equal weights make the weighted keys tie too.
  TargetGuard guard;
  const std::string key = "tie-key";
  const std::uint32_t state = fnv1a32(key);
  const auto [c1, c2] = colliding_ids(state);
  KeyBatch keys;
  keys.add(key);
  for (int weighted = 0; weighted < 2; ++weighted) {
    for (HashMode mode : {HashMode::fnv1a, HashMode::fnv1a_fmix}) {
      // A filler id that sorts first and scores below the tie, in zone A with c2; c1 in B.
      const std::uint32_t tie_r =
          mode == HashMode::fnv1a_fmix ? fmix32(fnv1a32_continue(state, c1)) : fnv1a32_continue(state, c1);
      std::string filler;
      for (int i = 0;; ++i) {
        filler = "a" + std::to_string(i);
        std::uint32_t h = fnv1a32_continue(state, filler);
        if (mode == HashMode::fnv1a_fmix) h = fmix32(h);
        if (h < tie_r) break;
      }
      ClusterSpec spec;
      spec.hash = mode;
      auto add = [&](const std::string& id, const std::string& zone) {
        NodeSpec n;
        n.id = id;
        if (weighted) n.weight = 2.0;
        n.labels.emplace_back("zone", zone);
        spec.nodes.push_back(n);
      };
      add(c2, "A");
      add(filler, "A");
      add(c1, "B");
      const ClusterView view(spec);
      const std::uint32_t i1 = *view.find(c1), i2 = *view.find(c2);
      REQUIRE(reference::score_pair(view, key, i1).rank_key ==
              reference::score_pair(view, key, i2).rank_key);
      for (const auto& t : runnable_targets()) {
        force_target(t.bits);
        PlaceOptions o;
        o.with_scores = true;
        CHECK(place(view, keys, o).owner(0) == i1);
        o.replicas = 2;
        Placement p = place(view, keys, o);
        CHECK(p.node(0, 0) == i1);
        CHECK(p.node(0, 1) == i2);
        o.distinct_label = "zone";
        p = place(view, keys, o);
        CHECK(p.node(0, 0) == i1);
        CHECK(p.node(0, 1) == i2);
        require_same(view, keys, o, "ties");
      }
    }
  }
}

TEST_CASE("results do not depend on thread count or chunking", "[kernels][threads]") {
  std::mt19937_64 rng(11);
  test::RandomClusterOptions co;
  co.min_nodes = 30;
  co.max_nodes = 50;
  const ClusterView view(test::random_cluster(rng, co));
  const KeyBatch keys = random_keys(rng, scaled(20000), 24);
  PlaceOptions o;
  o.replicas = 3;
  o.with_scores = true;
  o.threads = 1;
  const Placement one = place(view, keys, o);
  for (unsigned threads : {0u, 2u}) {
    o.threads = threads;
    const Placement many = place(view, keys, o);
    REQUIRE(many.nodes == one.nodes);
    REQUIRE(many.scores == one.scores);
  }
  // A sub-batch gives the same answers as the corresponding slice of the whole batch.
  KeyBatch part;
  for (std::size_t i = 4097; i < 4200; ++i) part.add(keys[i]);
  o.threads = 1;
  const Placement p = place(view, part, o);
  for (std::size_t i = 0; i < part.size(); ++i)
    for (std::uint32_t j = 0; j < 3; ++j) REQUIRE(p.node(i, j) == one.node(4097 + i, j));
}

TEST_CASE("partial results and large R", "[kernels][partial]") {
  TargetGuard guard;
  ClusterSpec spec;
  for (int i = 0; i < 12; ++i) {
    NodeSpec n;
    n.id = "n" + std::to_string(i);
    if (i % 4 != 3) n.labels.emplace_back("zone", i % 2 ? "odd" : "even");
    spec.nodes.push_back(n);
  }
  const ClusterView view(spec);  // domains: even, odd, n3, n7, n11 = 5
  std::mt19937_64 rng(3);
  const KeyBatch keys = random_keys(rng, 257);
  for (const auto& t : runnable_targets()) {
    force_target(t.bits);
    PlaceOptions o;
    o.replicas = 7;
    o.distinct_label = "zone";
    o.allow_partial = true;
    o.with_scores = true;
    const Placement p = place(view, keys, o);
    CHECK(p.partial);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      CHECK(p.node(i, 4) != kNoNode);
      CHECK(p.node(i, 5) == kNoNode);
      CHECK(p.node(i, 6) == kNoNode);
    }
    require_same(view, keys, o, "partial");
    o.allow_partial = false;
    CHECK_THROWS_AS(place(view, keys, o), InputError);
    o.distinct_label.clear();
    o.replicas = 12;  // beyond the kernels' registers: the reference fallback
    require_same(view, keys, o, "R=12");
    o.replicas = 13;
    CHECK_THROWS_AS(place(view, keys, o), InputError);
  }
}

TEST_CASE("verify_targets finds no mismatch", "[kernels][verify]") {
  VerifyOptions vo;
  vo.pairs = scaled(300000);
  vo.seed = 12345;
  const auto results = verify_targets(vo);
  REQUIRE(results.size() == runnable_targets().size());
  for (const auto& r : results) {
    INFO(r.name << ": " << r.first_mismatch);
    CHECK(r.pairs >= vo.pairs);
    CHECK(r.mismatches == 0);
  }
  CHECK(active_target().bits == runnable_targets().front().bits);
}

TEST_CASE("weighted gate bound: det::ln(u) <= u - 1 with u - 1 exact", "[kernels][det]") {
  // The weighted kernels skip det::ln for a candidate when u - 1 < B * w (see
  // Weighted::CannotBeat): sound only if det::ln(u) <= u - 1. The tightest cases are u
  // closest to 1 (r near 2^32 - 1): check those exhaustively, the rest by sampling.
  auto check = [](std::uint32_t r) {
    const double u = det::unit_from_hash(r);
    const double x = u - 1.0;
    REQUIRE(x + 1.0 == u);  // exact
    REQUIRE(det::ln(u) <= x);
  };
  for (std::uint32_t k = 0; k < (1u << 16) * static_cast<std::uint32_t>(test_scale()); ++k)
    check(0xFFFFFFFFu - k);
  std::mt19937_64 rng(17);
  for (int k = 0; k < 100000; ++k) check(static_cast<std::uint32_t>(rng()));
  for (std::uint32_t r = 0; r < 1000; ++r) check(r);
  CHECK(det::ln(1.0) == 0.0);
}

TEST_CASE("weighted classes: det::weighted_key is strictly increasing in r", "[kernels][det]") {
  // The kernels rank a class of equal weights by r alone (Runner::RunOwnerByClass): sound
  // only if the key rises strictly with r. The likeliest places for a rounding step to
  // break it are det::ln's range reduction (u at 2^-k and sqrt(2) 2^-k) and the ends of
  // the grid: check windows around those exhaustively, the rest by sampling.
  const double weights[] = {kMinWeight, 1e-6, 0.37, 1.0, 1.25, 3.0, 1e6, kMaxWeight};
  std::vector<std::uint32_t> starts = {0, 0xFFFFFFFFu - (1u << 14)};
  for (int k = 1; k <= 31; ++k)
    for (const double at : {std::ldexp(1.0, 32 - k), std::ldexp(std::sqrt(2.0), 32 - k)})
      starts.push_back(static_cast<std::uint32_t>(std::max(at - 4096.0, 0.0)));
  const std::uint32_t window = 8192 * static_cast<std::uint32_t>(test_scale());
  auto check = [&](std::uint32_t r, double w) {
    const double a = det::weighted_key(r, w), b = det::weighted_key(r + 1, w);
    if (!(a < b)) FAIL("r " << r << " weight " << w << ": " << a << " !< " << b);
  };
  std::mt19937_64 rng(404);
  for (const double w : weights) {
    for (const std::uint32_t s : starts)
      for (std::uint32_t k = 0; k < window && s + k < 0xFFFFFFFFu; ++k) check(s + k, w);
    for (int k = 0; k < 20000; ++k) check(static_cast<std::uint32_t>(rng() % 0xFFFFFFFFull), w);
  }
}

TEST_CASE("weighted gate in 32-bit lanes: gate_floor is the binary64 gate", "[kernels][det]") {
  // kernels::gate_floor turns the binary64 gate (u - 1 < Q, Q = (best * w) * (1 + 2^-50):
  // Weighted::Beaten) into one integer compare on the sign-flipped r. It must be that gate
  // exactly for the class's largest weight w, and sound for every lighter weight.
  std::mt19937_64 rng(505);
  const double weights[] = {kMinWeight, 1e-6, 0.37, 1.0, 1.25, 3.0, 1e6, kMaxWeight};
  auto pick = [&](const double* from) { return from[rng() % 8]; };
  std::vector<double> bests = {-HUGE_VAL, 0.0, -0x1p-1074, -0x1p-1060, -1e-300, -1e300};
  for (int k = 0; k < 4000; ++k)
    bests.push_back(det::weighted_key(static_cast<std::uint32_t>(rng()), pick(weights)));
  for (int k = 0; k < 200; ++k)  // bests close to 0: keys of r near 2^32
    bests.push_back(det::weighted_key(0xFFFFFFFFu - static_cast<std::uint32_t>(rng() % 4096),
                                      pick(weights)));
  auto binary_gate = [](std::uint32_t r, double best, double w) {
    return det::unit_from_hash(r) - 1.0 < (best * w) * (1.0 + 0x1p-50);
  };
  std::size_t checked = 0;
  for (const double best : bests) {
    const double w = rng() % 4 == 0 ? pick(weights) : 0.01 + static_cast<double>(rng() % 10000) / 100.0;
    const std::int64_t t = std::int64_t{kernels::gate_floor(best, w)} + 2147483648LL;  // r below t: skip
    std::vector<std::uint32_t> rs = {0, 1, 0xFFFFFFFEu, 0xFFFFFFFFu,
                                     static_cast<std::uint32_t>(rng())};
    for (std::int64_t d = -2; d <= 1; ++d)
      if (t + d >= 0 && t + d <= 0xFFFFFFFFLL) rs.push_back(static_cast<std::uint32_t>(t + d));
    for (const std::uint32_t r : rs) {
      INFO("best " << best << " weight " << w << " r " << r << " floor " << t);
      REQUIRE((std::int64_t{r} < t) == binary_gate(r, best, w));
      if (std::int64_t{r} >= t) continue;
      // Skipped: no weight up to w may rank it strictly above best.
      for (const double lighter : {w, w * 0.999, w / 3.0, kMinWeight}) {
        if (lighter > w) continue;
        REQUIRE(det::weighted_key(r, lighter) <= best);
        ++checked;
      }
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("weighted owners by weight class: 1 to 9 distinct weights, cuts, every target",
          "[kernels][classes]") {
  // Up to kMaxWeightClasses distinct weights the owner pass ranks each class by r (exact
  // classes); more take the 32-bit gate over runs of weights. Both against the reference,
  // scores bit for bit, with and without cuts (contract §9), on every target.
  TargetGuard guard;
  std::mt19937_64 rng(606);
  const double palette[] = {kMinWeight, 0.5, 1.0, 1.25, 1.5, 2.0, 3.0, 1e6, kMaxWeight, 7.5};
  const std::size_t node_counts[] = {1, 2, 9, 100, 300};
  for (std::size_t classes = 1; classes <= 10; ++classes)
    for (const std::size_t n : node_counts) {
      ClusterSpec spec;
      spec.hash = rng() % 4 == 0 ? HashMode::fnv1a : HashMode::fnv1a_fmix;
      const bool cuts = rng() % 2 == 0;
      for (std::size_t i = 0; i < n; ++i) {
        NodeSpec node;
        node.id = fmt::format("node-{}", i);
        node.weight = palette[(i + rng() % classes) % classes];
        if (cuts && rng() % 3 == 0) node.cut = static_cast<std::uint32_t>(rng());
        spec.nodes.push_back(node);
      }
      const ClusterView view(spec);
      const KeyBatch keys = random_keys(rng, scaled(1500, test::kEmulatedScale));
      PlaceOptions o;
      o.with_scores = true;
      o.allow_partial = true;
      o.engine = Engine::reference;
      const Placement want = place(view, keys, o);
      o.engine = Engine::simd;
      for (const auto& target : runnable_targets()) {
        force_target(target.bits);
        const Placement got = place(view, keys, o);
        INFO(classes << " weight classes, " << n << " nodes" << (cuts ? ", cuts" : "")
                     << ", target " << target.name);
        REQUIRE(got.nodes == want.nodes);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < got.scores.size(); ++i)
          bad += bits_of(got.scores[i]) != bits_of(want.scores[i]);
        REQUIRE(bad == 0);
      }
    }
}

TEST_CASE("plan kernel by weight class: added, removed and reweighted nodes, cuts",
          "[kernels][classes][pair]") {
  // A plan of two views with few distinct weights ranks list 0 by class and offers the
  // changed nodes' leaves through the binary64 gate; a class may have no list-0 node.
  std::mt19937_64 rng(707);
  const double palette[] = {0.5, 1.0, 1.25, 2.0, kMaxWeight, 3.0, 1e-6, 7.5};
  for (int round = 0; round < 24; ++round) {
    const std::size_t classes = 1 + static_cast<std::size_t>(rng() % 8);
    const std::size_t n = round % 3 == 0 ? 3 : 40 + static_cast<std::size_t>(rng() % 160);
    const bool cuts = round % 2 == 1;
    ClusterSpec from;
    for (std::size_t i = 0; i < n; ++i) {
      NodeSpec node;
      node.id = fmt::format("node-{}", i);
      node.weight = palette[rng() % classes];
      if (cuts && rng() % 3 == 0) node.cut = static_cast<std::uint32_t>(rng());
      from.nodes.push_back(node);
    }
    ClusterSpec to = from;
    const auto change = rng() % 4;
    if (change == 0 || change == 3) {  // add nodes, one of a weight seen nowhere else
      for (int k = 0; k < 2; ++k) {
        NodeSpec node;
        node.id = fmt::format("node-new-{}", k);
        node.weight = k == 0 ? palette[rng() % classes] : 11.0;
        to.nodes.push_back(node);
      }
    }
    if (change == 1 || change == 3) to.nodes.erase(to.nodes.begin() + static_cast<long>(rng() % n));
    if (change == 2 || change == 3) {  // every node of one class reweighted: that class leaves list 0
      const double w = *to.nodes.front().weight;
      for (NodeSpec& node : to.nodes)
        if (node.weight == w) node.weight = w / 2.0;
    }
    const ClusterView a(from), b(to);
    const KeyBatch keys = random_keys(rng, scaled(1200, test::kEmulatedScale));
    PlaceOptions o;
    o.with_scores = true;
    o.allow_partial = true;
    require_same_pair(a, b, keys, o,
                      fmt::format("{} weight classes, change {}{}", classes, change, cuts ? ", cuts" : ""));
  }
}

TEST_CASE("plan kernel: two views in one walk equal two reference placements", "[kernels][pair]") {
  // Random view pairs: each change alone and all at once, 1 to 2000 nodes, weighted or not,
  // R 1..5 with and without a distinct label, scores bit for bit, on every target.
  TargetGuard guard;
  std::mt19937_64 rng(1313);
  const unsigned changes[] = {test::kAdd, test::kRemove, test::kReweight, test::kRelabel,
                              test::kAdd | test::kRemove, test::kAllChanges};
  const std::size_t rounds = std::max<std::size_t>(8, scaled(24, test::kEmulatedScale));  // 2000 nodes at 7
  for (std::size_t round = 0; round < rounds; ++round) {
    test::RandomClusterOptions co;
    co.max_nodes = round % 8 == 7 ? 2000 : round % 3 == 0 ? 300 : 40;
    co.weighted = round % 2 == 1;
    co.shared_prefix = round % 4 < 2;
    const ClusterSpec from_spec = test::random_cluster(rng, co);
    const unsigned change = changes[round % 6];
    const ClusterView a(from_spec), b(test::changed_cluster(rng, from_spec, change));
    // Reweighting an unweighted view makes it weighted: the one change that cannot fuse.
    CHECK(PairPlacer(a, b, {}).fused() == (a.weighted() == b.weighted()));
    const KeyBatch keys = random_keys(rng, co.max_nodes == 2000 ? 60 : co.max_nodes == 300 ? 200 : 600);
    const std::uint32_t max_r = static_cast<std::uint32_t>(std::min<std::size_t>({5, a.size(), b.size()}));
    PlaceOptions o;
    o.with_scores = round % 3 != 2;
    o.threads = static_cast<unsigned>(round % 3);
    require_same_pair(a, b, keys, o, "owner");
    o.replicas = 1 + static_cast<std::uint32_t>(rng() % max_r);
    require_same_pair(a, b, keys, o, "top-R");
    o.distinct_label = round % 2 ? "zone" : "rack";
    o.allow_partial = true;
    require_same_pair(a, b, keys, o, "distinct");
  }
}

TEST_CASE("plan kernel: ties between shared and changed nodes rank the smaller id first",
          "[kernels][pair][ties]") {
  // c1 < c2 tie for the key. Shared c2 with c1 added (c1 must win in the target view), and
  // shared c1 with c2 added (c1 stays): the merge of the shared list with a view's own list
  // breaks ties by id, as the view alone does.
  TargetGuard guard;
  const std::string key = "tie-key";
  const auto [c1, c2] = colliding_ids(fnv1a32(key));
  KeyBatch keys;
  keys.add(key);
  for (int weighted = 0; weighted < 2; ++weighted)
    for (HashMode mode : {HashMode::fnv1a, HashMode::fnv1a_fmix})
      for (int added_first = 0; added_first < 2; ++added_first) {
        auto spec = [&](std::vector<std::string> ids) {
          ClusterSpec s;
          s.hash = mode;
          for (auto& id : ids) {
            NodeSpec n;
            n.id = id;
            if (weighted) n.weight = 2.0;
            n.labels.emplace_back("zone", id == c1 ? "B" : "A");
            s.nodes.push_back(n);
          }
          return s;
        };
        const std::string shared = added_first ? c2 : c1, added = added_first ? c1 : c2;
        const ClusterView a(spec({shared, "a0"})), b(spec({shared, added, "a0"}));
        PlaceOptions o;
        o.with_scores = true;
        REQUIRE(PairPlacer(a, b, o).fused());
        // The filler a0 scores below the tie for this key ("tie-key"), so c1 owns it in b.
        REQUIRE(reference::score_pair(b, key, *b.find(c1)).rank_key >
                reference::score_pair(b, key, *b.find("a0")).rank_key);
        REQUIRE(reference::owner(b, key) == *b.find(c1));
        require_same_pair(a, b, keys, o, "tie");
        o.replicas = 2;
        require_same_pair(a, b, keys, o, "tie R2");
        o.distinct_label = "zone";
        o.allow_partial = true;  // the source view may have one zone only
        require_same_pair(a, b, keys, o, "tie distinct");
      }
}
