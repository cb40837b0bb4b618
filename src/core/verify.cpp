// hrw::verify_targets: every runnable SIMD target against the scalar reference.
#include "hrw/verify.hpp"

#include <algorithm>
#include <bit>
#include <random>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"
#include "random_views.hpp"

namespace hrw {
namespace {

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out.empty() ? "(empty)" : out;
}

bool same_double(double a, double b) {
  return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
}

std::string describe_key(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& o,
                         const Placement& want, const Placement& got, std::size_t i,
                         std::size_t trial) {
  auto list = [&](const Placement& p) {
    std::string s;
    for (std::uint32_t j = 0; j < p.replicas; ++j) {
      const std::uint32_t n = p.node(i, j);
      s += j ? ", " : "";
      s += n == kNoNode ? "-" : hex(view.node(n).id);
      if (!p.scores.empty()) s += fmt::format(" ({:a})", p.scores[i * p.replicas + j]);
    }
    return "[" + s + "]" + (p.partial ? " partial" : "");
  };
  return fmt::format(
      "cluster #{} ({} nodes, {}, {}, seed {}), key #{} {}, R={}{}: reference {} simd {}", trial,
      view.size(), view.weighted() ? "weighted" : "unweighted", to_string(view.hash()),
      hex(view.seed()), i, hex(keys[i]), o.replicas,
      o.distinct_label.empty() ? "" : " distinct " + o.distinct_label, list(want), list(got));
}

// Compares got with want key by key (nodes, scores bit for bit, partial) into res.
void compare(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& o,
             const Placement& want, const Placement& got, std::size_t trial,
             const char* what, VerifyTargetResult& res) {
  res.pairs += keys.size() * view.size();
  ++res.placements;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    bool same = got.partial == want.partial && got.replicas == want.replicas &&
                got.scores.size() == want.scores.size();
    for (std::uint32_t j = 0; same && j < o.replicas; ++j) {
      const std::size_t at = i * o.replicas + j;
      same = got.nodes[at] == want.nodes[at] &&
             (want.scores.empty() || same_double(got.scores[at], want.scores[at]));
    }
    if (!same && res.mismatches++ == 0)
      res.first_mismatch = what + describe_key(view, keys, o, want, got, i, trial);
  }
}

}  // namespace

std::vector<VerifyTargetResult> verify_targets(const VerifyOptions& options) {
  std::vector<VerifyTargetResult> results;
  // A target forced by the caller (hrw --target X verify) is the only one checked.
  const std::int64_t forced = forced_target();
  std::vector<SimdTarget> targets = runnable_targets();
  if (forced != 0) std::erase_if(targets, [&](const SimdTarget& t) { return t.bits != forced; });
  for (const SimdTarget& t : targets) results.push_back({t.bits, t.name, 0, 0, 0, {}});

  std::mt19937_64 rng(options.seed);
  std::uint64_t pairs = 0;
  {
    for (std::size_t trial = 0; trial == 0 || pairs < options.pairs; ++trial) {
      // Every fourth cluster is hierarchical (contract §6): the tree engine, and plans
      // between hierarchical views and between flat and hierarchical ones.
      const bool tree = trial % 4 == 3;
      ClusterSpec spec = tree ? gen::tree_cluster(rng) : gen::flat_cluster(rng);
      if (!tree) gen::add_cuts(rng, spec);  // contract §9: cuts are defined for flat views
      const ClusterView view(spec);
      const std::size_t n = view.size();
      const std::size_t max_keys = std::max<std::size_t>(1, 60000 / n);
      const KeyBatch keys = gen::random_keys(rng, std::min<std::size_t>(3000, rng() % max_keys + (rng() % 4 == 0 ? 0 : 1)));

      std::vector<PlaceOptions> configs;
      PlaceOptions owner;
      owner.with_scores = true;
      configs.push_back(owner);
      const std::uint32_t max_r = static_cast<std::uint32_t>(std::min<std::size_t>(5, n));
      if (max_r >= 2) {
        PlaceOptions top;
        top.replicas = 2 + static_cast<std::uint32_t>(rng() % (max_r - 1));
        top.with_scores = rng() % 2 == 0;
        configs.push_back(top);
      }
      PlaceOptions distinct;
      distinct.replicas = 1 + static_cast<std::uint32_t>(rng() % max_r);
      distinct.distinct_label = "zone";
      distinct.allow_partial = true;
      distinct.with_scores = true;
      // Contract §8: a distinct label no node carries is refused, so a view drawn without
      // any "zone" (one node in seven lacks it) is checked without the distinct walk.
      if (view.label_coverage("zone").lacking < n) configs.push_back(distinct);

      for (PlaceOptions o : configs) {
        o.threads = options.threads;
        o.engine = Engine::reference;
        const Placement want = place(view, keys, o);
        o.engine = Engine::simd;
        for (std::size_t ti = 0; ti < targets.size(); ++ti) {
          const ScopedTarget on(targets[ti].bits);
          compare(view, keys, o, want, place(view, keys, o), trial, "", results[ti]);
        }
        pairs += keys.size() * n;
      }

      // A plan's two views placed together (PairPlacer: one walk of the union trie per
      // key when they can share it) against two reference placements.
      ClusterSpec to_spec = tree ? gen::changed_tree(rng, spec) : gen::changed_flat(rng, spec);
      if (!tree && rng() % 4 == 0) gen::add_cuts(rng, to_spec);  // cuts in one view, the other or both
      const ClusterView to(std::move(to_spec));
      const std::uint32_t max_pair_r =
          static_cast<std::uint32_t>(std::min<std::size_t>({5, n, to.size()}));
      for (PlaceOptions o : configs) {
        if (!o.distinct_label.empty() && to.label_coverage(o.distinct_label).lacking == to.size()) continue;
        o.replicas = std::min(o.replicas, max_pair_r);
        o.threads = options.threads;
        o.engine = Engine::reference;
        const Placement want_a = place(view, keys, o), want_b = place(to, keys, o);
        o.engine = Engine::simd;
        for (std::size_t ti = 0; ti < targets.size(); ++ti) {
          const ScopedTarget on(targets[ti].bits);
          Placement got_a, got_b;
          PairPlacer(view, to, o).place(keys, got_a, got_b);
          compare(view, keys, o, want_a, got_a, trial, "plan source view: ", results[ti]);
          compare(to, keys, o, want_b, got_b, trial, "plan target view: ", results[ti]);
        }
        pairs += keys.size() * (n + to.size());
      }
    }
  }
  return results;
}

}  // namespace hrw
