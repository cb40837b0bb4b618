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
#include "verify_tree.hpp"

namespace hrw {
namespace {

std::string hex(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) out += fmt::format("{:02x}", c);
  return out.empty() ? "(empty)" : out;
}

std::string random_bytes(std::mt19937_64& rng, std::size_t min_len, std::size_t max_len) {
  std::string s(min_len + rng() % (max_len - min_len + 1), '\0');
  for (char& c : s) {
    const auto v = rng();
    // Mostly arbitrary bytes, with 0x00 and 0xFF over-represented.
    c = static_cast<char>((v & 0x700) == 0 ? 0x00 : (v & 0x700) == 0x100 ? 0xFF : (v & 0xFF));
  }
  return s;
}

std::string random_id(std::mt19937_64& rng, int style, std::size_t i) {
  static constexpr char kChain[] = {'a', 'b', '\0', '\xFF'};
  switch (style) {
    case 0: return "node-" + std::to_string(i);
    case 1: return fmt::format("node-{:03}", i);
    case 2: return random_bytes(rng, 1, 12);
    case 3: {  // dense trie: ids from a 4-letter alphabet, many prefixes of each other
      std::string s(1 + rng() % 8, 'a');
      for (char& c : s) c = kChain[rng() % 4];
      return s;
    }
    default: {
      static constexpr std::string_view kPrefixes[] = {"cache-eu-1-", "cache-eu-2-", "cache-us-",
                                                       "db"};
      std::string s(kPrefixes[rng() % 4]);
      s += random_bytes(rng, 0, 4);
      return s;
    }
  }
}

// Contract §9: one flat cluster in three carries cuts on about half of its nodes: low
// (a few percent of pairs fail), anywhere, or high (most keys clear no node: overflow).
void add_cuts(std::mt19937_64& rng, ClusterSpec& spec) {
  if (rng() % 3 != 0) return;
  const auto mode = rng() % 3;
  for (NodeSpec& node : spec.nodes) {
    if (rng() % 2) continue;
    node.cut = mode == 0   ? static_cast<std::uint32_t>(rng() % (1u << 28))
               : mode == 1 ? static_cast<std::uint32_t>(rng())
                           : 0xF0000000u + static_cast<std::uint32_t>(rng() % (1u << 28));
  }
}

ClusterSpec random_cluster(std::mt19937_64& rng) {
  ClusterSpec spec;
  spec.source = "verify";
  spec.seed = (rng() & 1) ? random_bytes(rng, 0, 16) : std::string();
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  const auto size_class = rng() % 10;
  const std::size_t n = size_class < 5   ? 1 + rng() % 20
                        : size_class < 8 ? 21 + rng() % 180
                                         : 201 + rng() % 1800;
  const int style = static_cast<int>(rng() % 5);
  const int weight_mode = static_cast<int>(rng() % 5);  // 0,1: unweighted
  const int zones = 1 + static_cast<int>(rng() % 6);
  std::set<std::string> seen;
  std::size_t attempts = 0;
  for (std::size_t i = 0; spec.nodes.size() < n; ++i) {
    // Style 3 has only ~87k distinct ids; fall back to random bytes if it runs dry.
    std::string id = random_id(rng, ++attempts > 50 * n ? 2 : style, i);
    if (id.empty() || !seen.insert(id).second) continue;
    NodeSpec node;
    node.id = std::move(id);
    if (weight_mode == 2) {
      node.weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
    } else if (weight_mode == 3) {  // only some weights given; the rest are 1
      if (rng() % 3 == 0) node.weight = std::ldexp(1.0 + (rng() % 1000) / 1000.0, int(rng() % 7) - 3);
    } else if (weight_mode == 4) {  // extremes: the accepted range's ends among ordinary weights
      static constexpr double kW[] = {kMinWeight, 1e-6, 0.5, 1.0, 3.0, 1e6, kMaxWeight};
      node.weight = kW[rng() % 7];
    }
    // fmt, not "z" + std::to_string(...): g++ 12 warns falsely (-Wrestrict) on the latter.
    if (rng() % 7 != 0) node.labels.emplace_back("zone", fmt::format("z{}", rng() % zones));
    spec.nodes.push_back(std::move(node));
  }
  add_cuts(rng, spec);
  std::shuffle(spec.nodes.begin(), spec.nodes.end(), rng);
  return spec;
}

// The target view of a plan: nodes added, removed, reweighted or relabelled, or several of
// those at once; the same seed and hash mode, so hrw plan fuses the two placements (unless
// a reweight makes an unweighted view weighted: then it falls back to two).
ClusterSpec changed_cluster(std::mt19937_64& rng, const ClusterSpec& from) {
  ClusterSpec to = from;
  to.version = from.version + 1;
  bool weighted = false;
  for (const NodeSpec& n : to.nodes) weighted = weighted || n.weight.has_value();
  const auto changes = 1 + rng() % 15;  // bits: add, remove, reweight, relabel
  if (changes & 1) {
    std::set<std::string> ids;
    for (const NodeSpec& n : to.nodes) ids.insert(n.id);
    for (std::size_t k = 1 + rng() % 3; k > 0;) {
      NodeSpec node;
      node.id = rng() % 2 ? fmt::format("node-{}", to.nodes.size() + rng() % 50) : random_bytes(rng, 1, 12);
      if (!ids.insert(node.id).second) continue;
      if (weighted) node.weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
      if (rng() % 7 != 0) node.labels.emplace_back("zone", fmt::format("z{}", rng() % 6));
      to.nodes.push_back(std::move(node));
      --k;
    }
  }
  if ((changes & 2) && to.nodes.size() > 1)
    for (std::size_t k = 1 + rng() % std::min<std::size_t>(3, to.nodes.size() - 1); k > 0; --k)
      to.nodes.erase(to.nodes.begin() + static_cast<std::ptrdiff_t>(rng() % to.nodes.size()));
  if ((changes & 4) && (weighted || rng() % 8 == 0))
    for (std::size_t k = 1 + rng() % 3; k > 0; --k)
      to.nodes[rng() % to.nodes.size()].weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
  if (changes & 8)
    for (std::size_t k = 1 + rng() % 3; k > 0; --k) {
      NodeSpec& node = to.nodes[rng() % to.nodes.size()];
      node.labels.clear();
      if (rng() % 5 != 0) node.labels.emplace_back("zone", fmt::format("z{}", rng() % 6));
    }
  if (rng() % 4 == 0) add_cuts(rng, to);  // cuts in one view, the other or both
  std::shuffle(to.nodes.begin(), to.nodes.end(), rng);
  return to;
}

KeyBatch random_keys(std::mt19937_64& rng, std::size_t count) {
  KeyBatch keys;
  const auto mode = rng() % 3;
  for (std::size_t i = 0; i < count; ++i) {
    if (mode == 0)
      keys.add(random_bytes(rng, 16, 16));
    else if (mode == 1 || rng() % 4 != 0)
      keys.add(random_bytes(rng, 0, 24));
    else
      keys.add(random_bytes(rng, 0, 200));
  }
  return keys;
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
      const ClusterSpec spec = tree ? verify_tree::random_cluster(rng) : random_cluster(rng);
      const ClusterView view(spec);
      const std::size_t n = view.size();
      const std::size_t max_keys = std::max<std::size_t>(1, 60000 / n);
      const KeyBatch keys = random_keys(rng, std::min<std::size_t>(3000, rng() % max_keys + (rng() % 4 == 0 ? 0 : 1)));

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
      configs.push_back(distinct);

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
      const ClusterView to(tree ? verify_tree::changed_cluster(rng, spec) : changed_cluster(rng, spec));
      const std::uint32_t max_pair_r =
          static_cast<std::uint32_t>(std::min<std::size_t>({5, n, to.size()}));
      for (PlaceOptions o : configs) {
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
