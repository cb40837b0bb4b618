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

std::vector<PairScore> rank(const ClusterView& view, std::string_view key) {
  std::vector<PairScore> all;
  all.reserve(view.size());
  for (std::uint32_t i = 0; i < view.size(); ++i) all.push_back(score_pair(view, key, i));
  std::sort(all.begin(), all.end(),
            [&](const PairScore& a, const PairScore& b) { return ranks_before(view, a, b); });
  return all;
}

std::uint32_t owner(const ClusterView& view, std::string_view key) {
  PairScore best = score_pair(view, key, 0);
  for (std::uint32_t i = 1; i < view.size(); ++i) {
    PairScore s = score_pair(view, key, i);
    if (ranks_before(view, s, best)) best = s;
  }
  return best.node;
}

void check_replicas(const ClusterView& view, std::uint32_t r, std::string_view label,
                    bool allow_partial) {
  if (r < 1) throw InputError(fmt::format("--replicas must be at least 1, got {}", r));
  if (r > view.size())
    throw InputError(fmt::format("--replicas {} exceeds the {} node(s) of {}", r, view.size(),
                                 view.source()));
  if (label.empty() || allow_partial) return;
  const std::uint32_t domains = view.domain_count(label);
  if (domains < r)
    throw InputError(fmt::format(
        "--replicas {} with distinct {} needs {} failure domains, but {} has only {} "
        "(use --partial to accept fewer)",
        r, quote_for_message(label), r, view.source(), domains));
}

std::vector<std::uint32_t> top_r(const ClusterView& view, std::string_view key, std::uint32_t r) {
  check_replicas(view, r, {}, false);
  std::vector<std::uint32_t> out;
  for (const PairScore& s : rank(view, key)) {
    if (out.size() == r) break;
    out.push_back(s.node);
  }
  return out;
}

DistinctReplicas top_r_distinct(const ClusterView& view, std::string_view key, std::uint32_t r,
                                std::string_view label, bool allow_partial) {
  check_replicas(view, r, label, allow_partial);
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
  return out;
}

}  // namespace hrw::reference
