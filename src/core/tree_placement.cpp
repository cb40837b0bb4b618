// Hierarchical batch placement (contract §6) with no kernel of its own: every choice is
// kernels::run_batch over a small plan per bucket, keys grouped by the bucket they chose,
// level by level; top-R keeps at most R entities per level. docs/hierarchy.md, "The batch
// engine".
#include "tree_placement.hpp"

#include <algorithm>
#include <string_view>

#include "hrw/det_math.hpp"
#include "hrw/hierarchy.hpp"
#include "kernel_plan.hpp"
#include "node_trie.hpp"

namespace hrw::kernels {
namespace {

// A one-view plan over `ids` (memcmp-sorted), choosing the best `select` of them.
KernelPlan choice_plan(const std::vector<std::string_view>& ids, const std::vector<double>& weights,
                       bool fmix, bool weighted, std::uint32_t select) {
  KernelPlan plan;
  plan.program = build_trie_program(ids);
  plan.fmix = fmix;
  plan.weighted = weighted;
  plan.select = select;
  plan.list_leaves[0] = static_cast<std::uint32_t>(ids.size());
  KernelView side;
  side.index.resize(ids.size());
  for (std::uint32_t u = 0; u < ids.size(); ++u) side.index[u] = u;
  if (weighted) {
    side.weights = weights;
    assign_weight_classes(side);
  }
  side.select = select;
  plan.views.push_back(std::move(side));
  if (weighted) assign_class_first(plan);  // one view: every leaf is in list 0
  return plan;
}

// Per-thread working memory, grown to the largest chunk and reused.
struct Scratch {
  std::vector<std::uint32_t> states, group_states, entities, counts, results, order_of, sizes;
  std::vector<double> ranks, entity_ranks;
};

Scratch& thread_scratch() {
  static thread_local Scratch scratch;
  return scratch;
}

template <class T>
T* sized(std::vector<T>& v, std::size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

}  // namespace

TreePlacer::TreePlacer(const ClusterView& view, const PlaceOptions& options)
    : seed_state_(view.seed_state()),
      replicas_(options.replicas),
      with_scores_(options.with_scores),
      weighted_(view.weighted()) {
  const Hierarchy& h = *view.hierarchy();
  const std::size_t depth = h.depth();
  const bool fmix = view.hash() == HashMode::fnv1a_fmix;
  // Levels whose choices keep R entities per key: down to the distinct label's level, or
  // to the nodes for plain top-R.
  const std::size_t decided =
      options.distinct_label.empty() ? depth : *h.level_of(options.distinct_label);
  top_buckets_.resize(h.level(0).size());
  for (std::uint32_t b = 0; b < top_buckets_.size(); ++b) top_buckets_[b] = b;
  levels_.resize(depth + 1);
  for (std::size_t c = 0; c <= depth; ++c) {
    const std::size_t parents = c == 0 ? 1 : h.level(c - 1).size();
    levels_[c].resize(parents);
    for (std::size_t p = 0; p < parents; ++p) {
      Choice& choice = levels_[c][p];
      choice.children = c == 0 ? &top_buckets_ : &h.level(c - 1)[p].children;
      std::vector<std::string_view> ids;
      std::vector<double> weights;
      for (std::uint32_t child : *choice.children) {
        if (c < depth) {
          ids.push_back(h.level(c)[child].name);
          weights.push_back(h.level(c)[child].weight);
        } else {
          ids.push_back(view.node(child).id);
          weights.push_back(view.node(child).weight);
        }
      }
      const std::uint32_t keep = c <= decided ? options.replicas : 1;
      const auto select = std::min<std::uint32_t>(keep, static_cast<std::uint32_t>(ids.size()));
      // Buckets rank by det::ln(u)/W; nodes by the view's rule. Siblings of one weight W
      // rank by r instead, the same order with the same ties: u = (r + 1)/2^32 grows with
      // r, det::ln is within 2.1 ulp of ln (docs/placement-contract.md) while consecutive
      // ln(u) differ by more than 2^-36 relative, so det::ln is strictly increasing on
      // every u, and dividing by one W > 0 (correctly rounded) keeps distinct values
      // distinct and in order. That saves the ln of every bucket of equal-weight siblings.
      const bool one_weight =
          std::all_of(weights.begin(), weights.end(), [&](double w) { return w == weights[0]; });
      const bool weighted = c < depth ? !one_weight : view.weighted();
      choice.plan = choice_plan(ids, weights, fmix, weighted, select);
    }
  }
}

void TreePlacer::place_chunk(const KeyView& keys, std::size_t lo, std::size_t hi,
                             Placement& out) const {
  const std::size_t n = hi - lo, R = replicas_, depth = levels_.size() - 1;
  Scratch& s = thread_scratch();
  std::uint32_t* states = sized(s.states, n);
  key_states(seed_state_, keys.data, keys.offsets, keys.end(), lo, hi, states);
  // Key k's list: entities[k * R + j] for j < sizes[k]. Level 0: the root's choice, whose
  // local indices are the top buckets' own.
  std::uint32_t* entities = sized(s.entities, n * R);
  std::uint32_t* sizes = sized(s.sizes, n);
  const KernelPlan& root = levels_[0][0].plan;
  run_batch(root, states, n, KernelOutput{entities, nullptr, R});
  std::fill(sizes, sizes + n, root.select);
  double* entity_ranks = with_scores_ ? sized(s.entity_ranks, n * R) : nullptr;
  for (std::size_t c = 1; c <= depth; ++c) {
    const std::vector<Choice>& choices = levels_[c];
    const bool last = c == depth;
    // Counting sort of the items (k, j) by the parent bucket entities[k * R + j].
    std::vector<std::uint32_t>& counts = s.counts;
    counts.assign(choices.size() + 1, 0);
    std::size_t items = 0;
    for (std::size_t k = 0; k < n; ++k)
      for (std::uint32_t j = 0; j < sizes[k]; ++j) ++counts[entities[k * R + j] + 1];
    for (std::size_t b = 0; b < choices.size(); ++b) counts[b + 1] += counts[b];
    items = counts[choices.size()];
    std::uint32_t* order_of = sized(s.order_of, n * R);  // item k * R + j -> sorted position
    std::uint32_t* group_states = sized(s.group_states, items);
    for (std::size_t k = 0; k < n; ++k)
      for (std::uint32_t j = 0; j < sizes[k]; ++j) {
        const std::uint32_t pos = counts[entities[k * R + j]]++;
        order_of[k * R + j] = pos;
        group_states[pos] = states[k];
      }
    // counts[b] is now the end of bucket b's group (and counts[b - 1] its start).
    std::size_t stride = 1;
    for (const Choice& ch : choices) stride = std::max<std::size_t>(stride, ch.plan.select);
    std::uint32_t* results = sized(s.results, items * stride);
    double* ranks = last && with_scores_ ? sized(s.ranks, items * stride) : nullptr;
    for (std::size_t b = 0; b < choices.size(); ++b) {
      const std::size_t begin = b == 0 ? 0 : counts[b - 1], end = counts[b];
      if (begin == end) continue;
      const Choice& ch = choices[b];
      run_batch(ch.plan, group_states + begin, end - begin,
                KernelOutput{results + begin * stride, ranks ? ranks + begin * stride : nullptr,
                             stride});
      const std::uint32_t* global = ch.children->data();
      for (std::size_t i = begin; i < end; ++i)
        for (std::uint32_t t = 0; t < ch.plan.select; ++t)
          results[i * stride + t] = global[results[i * stride + t]];
    }
    // Each key's new list: its items' choices in list order, cut at R.
    for (std::size_t k = 0; k < n; ++k) {
      std::uint32_t parents[kMaxKernelReplicas];
      const std::uint32_t count = sizes[k];
      std::copy(entities + k * R, entities + k * R + count, parents);
      std::uint32_t kept = 0;
      for (std::uint32_t j = 0; j < count && kept < R; ++j) {
        const std::size_t pos = order_of[k * R + j];
        const std::uint32_t select = choices[parents[j]].plan.select;
        for (std::uint32_t t = 0; t < select && kept < R; ++t, ++kept) {
          entities[k * R + kept] = results[pos * stride + t];
          if (ranks) entity_ranks[k * R + kept] = ranks[pos * stride + t];
        }
      }
      sizes[k] = kept;
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    std::copy(entities + k * R, entities + k * R + sizes[k], out.nodes.data() + (lo + k) * R);
    if (with_scores_)
      for (std::uint32_t j = 0; j < sizes[k]; ++j) {
        const double rank = entity_ranks[k * R + j];
        // Report u^(1/w) = det::exp(ln(u)/w), or r, as reference::score_pair does.
        out.scores[(lo + k) * R + j] = weighted_ ? det::exp(rank) : rank;
      }
  }
}

}  // namespace hrw::kernels
