// The scalar reference implementation of the placement contract (§2, §3).
// Deliberately plain: one pair at a time, a full sort for the ranking. GCC 12 would
// auto-vectorise some of these loops, so the file is built without tree vectorisation
// (CMakeLists.txt sets -fno-tree-vectorize for it): the reference stays scalar.
#include "hrw/reference.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "hrw/det_math.hpp"
#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/hierarchy.hpp"

namespace hrw::reference {

PairScore score_pair(const ClusterView& view, std::string_view key, std::uint32_t node) {
  const Node& n = view.node(node);
  PairScore s;
  s.node = node;
  s.fnv = fnv1a32_continue(fnv1a32_continue(view.seed_state(), key), n.id);
  s.r = view.hash() == HashMode::fnv1a_fmix ? fmix32(s.fnv) : s.fnv;
  if (view.weighted()) {
    s.rank_key = det::weighted_key(s.r, n.weight);
    s.score = det::exp(s.rank_key);
  } else {
    s.rank_key = s.r;
    s.score = s.r;
  }
  return s;
}

bool ranks_before(const ClusterView& view, const PairScore& a, const PairScore& b) {
  if (a.rank_key != b.rank_key) return a.rank_key > b.rank_key;
  return id_less(view.node(a.node).id, view.node(b.node).id);
}

BucketScore score_bucket(const ClusterView& view, std::string_view key, std::size_t level,
                         std::uint32_t bucket) {
  const Bucket& b = view.hierarchy()->level(level)[bucket];
  BucketScore s;
  s.level = level;
  s.bucket = bucket;
  s.fnv = fnv1a32_continue(fnv1a32_continue(view.seed_state(), key), b.name);
  s.r = view.hash() == HashMode::fnv1a_fmix ? fmix32(s.fnv) : s.fnv;
  s.rank_key = det::weighted_key(s.r, b.weight);
  s.score = det::exp(s.rank_key);
  return s;
}

bool bucket_ranks_before(const ClusterView& view, const BucketScore& a, const BucketScore& b) {
  if (a.rank_key != b.rank_key) return a.rank_key > b.rank_key;
  const auto& level = view.hierarchy()->level(a.level);
  return id_less(level[a.bucket].name, level[b.bucket].name);
}

namespace {

// The nodes of `candidates` (indices), best first, by the view's own rule (§3).
void rank_nodes(const ClusterView& view, std::string_view key,
                const std::vector<std::uint32_t>& candidates, std::vector<PairScore>& out) {
  std::vector<PairScore> scored;
  for (std::uint32_t node : candidates) scored.push_back(score_pair(view, key, node));
  std::sort(scored.begin(), scored.end(),
            [&](const PairScore& a, const PairScore& b) { return ranks_before(view, a, b); });
  out.insert(out.end(), scored.begin(), scored.end());
}

// §6 tree ranking: the buckets of `candidates` at `level` by score, each followed by its
// own subtree's ranking (depth first).
void rank_tree(const ClusterView& view, std::string_view key, std::size_t level,
               const std::vector<std::uint32_t>& candidates, std::vector<PairScore>& out) {
  const Hierarchy& h = *view.hierarchy();
  std::vector<BucketScore> scored;
  for (std::uint32_t b : candidates) scored.push_back(score_bucket(view, key, level, b));
  std::sort(scored.begin(), scored.end(), [&](const BucketScore& a, const BucketScore& b) {
    return bucket_ranks_before(view, a, b);
  });
  for (const BucketScore& s : scored) {
    const auto& children = h.level(level)[s.bucket].children;
    if (level + 1 == h.depth()) rank_nodes(view, key, children, out);
    else rank_tree(view, key, level + 1, children, out);
  }
}

std::vector<std::uint32_t> all_indices(std::size_t n) {
  std::vector<std::uint32_t> out(n);
  for (std::uint32_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

}  // namespace

std::vector<BucketScore> owner_path(const ClusterView& view, std::string_view key) {
  const Hierarchy& h = *view.hierarchy();
  std::vector<BucketScore> path;
  std::vector<std::uint32_t> candidates = all_indices(h.level(0).size());
  for (std::size_t level = 0; level < h.depth(); ++level) {
    BucketScore best = score_bucket(view, key, level, candidates.front());
    for (std::size_t i = 1; i < candidates.size(); ++i) {
      const BucketScore s = score_bucket(view, key, level, candidates[i]);
      if (bucket_ranks_before(view, s, best)) best = s;
    }
    path.push_back(best);
    candidates = h.level(level)[best.bucket].children;
  }
  return path;
}

std::vector<PairScore> rank(const ClusterView& view, std::string_view key) {
  if (const Hierarchy* h = view.hierarchy()) {
    std::vector<PairScore> out;
    out.reserve(view.size());
    rank_tree(view, key, 0, all_indices(h->level(0).size()), out);
    return out;
  }
  std::vector<PairScore> all;
  all.reserve(view.size());
  for (std::uint32_t i = 0; i < view.size(); ++i) all.push_back(score_pair(view, key, i));
  std::sort(all.begin(), all.end(),
            [&](const PairScore& a, const PairScore& b) { return ranks_before(view, a, b); });
  return all;
}

std::uint32_t owner(const ClusterView& view, std::string_view key) {
  // Hierarchical: the best node of the last bucket of the owner's path (Z + K + M scores).
  const std::vector<std::uint32_t> candidates =
      view.hierarchy() ? view.hierarchy()->level(view.hierarchy()->depth() - 1)
                             [owner_path(view, key).back().bucket].children
                       : all_indices(view.size());
  PairScore best = score_pair(view, key, candidates.front());
  for (std::size_t i = 1; i < candidates.size(); ++i) {
    PairScore s = score_pair(view, key, candidates[i]);
    if (ranks_before(view, s, best)) best = s;
  }
  return best.node;
}

InputError too_few_domains(const ClusterView& view, std::uint32_t r, std::string_view label,
                           std::uint32_t domains) {
  return InputError(Setting::replica_count,
                    fmt::format(" {} with distinct {} needs {} failure domains, but {} has "
                                "only {}",
                                r, quote_for_message(label), r, view.source(), domains),
                    Hint::accept_partial);
}

std::vector<std::uint32_t> top_r(const ClusterView& view, std::string_view key, std::uint32_t r) {
  std::vector<std::uint32_t> out;
  for (const PairScore& s : rank(view, key)) {
    if (out.size() == r) break;
    out.push_back(s.node);
  }
  return out;
}

DistinctReplicas top_r_distinct(const ClusterView& view, std::string_view key, std::uint32_t r,
                                std::string_view label, bool allow_partial) {
  const std::vector<std::uint32_t> domain = view.domains(label);
  DistinctReplicas out;
  std::vector<bool> taken(view.size(), false);
  for (const PairScore& s : rank(view, key)) {
    if (out.nodes.size() == r) break;
    if (taken[domain[s.node]]) continue;
    taken[domain[s.node]] = true;
    out.nodes.push_back(s.node);
  }
  out.partial = out.nodes.size() < r;
  if (out.partial && !allow_partial)
    throw too_few_domains(view, r, label, static_cast<std::uint32_t>(out.nodes.size()));
  return out;
}

}  // namespace hrw::reference
