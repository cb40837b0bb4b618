// ClusterView(s) -> KernelPlan: the union of the ids as a trie program, and each view's
// node index, weight and domain per program node (see kernel_api.hpp).
#include "kernel_plan.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

#include "hrw/det_math.hpp"
#include "node_trie.hpp"

namespace hrw::kernels {
namespace {

// The memcmp-sorted union of the views' (sorted) ids.
std::vector<std::string_view> union_ids(const std::vector<const ClusterView*>& views) {
  std::vector<std::string_view> ids;
  for (const ClusterView* v : views)
    for (const Node& n : v->nodes()) ids.push_back(n.id);
  std::sort(ids.begin(), ids.end(), id_less);
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

KernelView side_of(const ClusterView& view, const std::vector<std::string_view>& ids,
                   const PlaceOptions& options, bool weighted, bool distinct, bool cuts) {
  KernelView side;
  side.index.assign(ids.size(), kAbsent);
  std::size_t i = 0;  // both lists are memcmp-sorted: one merge pass
  for (std::uint32_t u = 0; u < ids.size() && i < view.size(); ++u)
    if (view.node(static_cast<std::uint32_t>(i)).id == ids[u]) side.index[u] = static_cast<std::uint32_t>(i++);
  if (i != view.size()) throw std::logic_error("kernel plan: a view id is missing from the union");
  if (weighted) {
    side.weights.assign(ids.size(), 0.0);
    for (std::uint32_t u = 0; u < ids.size(); ++u)
      if (side.index[u] != kAbsent) side.weights[u] = view.node(side.index[u]).weight;
    assign_weight_classes(side);
  }
  if (cuts) {
    side.cut_floors.assign(ids.size(), static_cast<std::int32_t>(0x80000000u));
    for (std::uint32_t u = 0; u < ids.size(); ++u)
      if (side.index[u] != kAbsent)
        side.cut_floors[u] = static_cast<std::int32_t>(
            (std::max<std::uint32_t>(view.node(side.index[u]).cut, 1) - 1) ^ 0x80000000u);
  }
  if (view.has_cuts()) {
    side.cuts.assign(ids.size(), 0);
    side.unit_cuts.assign(ids.size(), 0.0);
    for (std::uint32_t u = 0; u < ids.size(); ++u)
      if (side.index[u] != kAbsent) {
        side.cuts[u] = view.node(side.index[u]).cut;
        side.unit_cuts[u] = det::unit_from_hash(side.cuts[u]);  // (cut + 1) / 2^32
      }
  }
  const std::uint32_t domain_count = options.distinct_label.empty()
                                         ? static_cast<std::uint32_t>(view.size())
                                         : view.domain_count(options.distinct_label);
  side.select = std::min(options.replicas, domain_count);
  if (distinct) {
    const std::vector<std::uint32_t> domains = view.domains(options.distinct_label);
    side.domain.assign(ids.size(), 0);
    side.first_in_domain.assign(ids.size(), 0);
    std::vector<bool> seen(domain_count, false);
    for (std::uint32_t u = 0; u < ids.size(); ++u) {
      if (side.index[u] == kAbsent) continue;
      const std::uint32_t d = domains[side.index[u]];
      side.domain[u] = d;
      side.first_in_domain[u] = seen[d] ? 0 : 1;
      seen[d] = true;
    }
    side.domain_count = domain_count;
  }
  return side;
}

std::uint32_t cut_of(const KernelView& side, std::uint32_t u) {
  return side.cuts.empty() ? 0 : side.cuts[u];
}

}  // namespace

void assign_weight_classes(KernelView& side) {
  std::vector<double> distinct;
  for (std::uint32_t u = 0; u < side.index.size(); ++u)
    if (side.index[u] != kAbsent) distinct.push_back(side.weights[u]);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  const std::size_t classes = std::min(distinct.size(), kMaxWeightClasses);
  side.class_weights.assign(classes, 0.0);
  side.weight_class.assign(side.index.size(), 0);
  auto class_of_rank = [&](std::size_t k) { return k * classes / distinct.size(); };
  for (std::size_t k = 0; k < distinct.size(); ++k)
    side.class_weights[class_of_rank(k)] = distinct[k];  // ascending: the last is the largest
  for (std::uint32_t u = 0; u < side.index.size(); ++u) {
    if (side.index[u] == kAbsent) continue;
    const auto k = static_cast<std::size_t>(
        std::lower_bound(distinct.begin(), distinct.end(), side.weights[u]) - distinct.begin());
    side.weight_class[u] = static_cast<std::uint8_t>(class_of_rank(k));
  }
  side.exact_classes = classes == distinct.size();
}

void assign_class_first(KernelPlan& plan) {
  KernelView& side = plan.views[0];
  side.class_first.assign(side.class_weights.size(), kAbsent);
  for (const Op& op : plan.program.ops)
    if (op.kind == kLeaf && op.lists == 1 && side.class_first[side.weight_class[op.node]] == kAbsent)
      side.class_first[side.weight_class[op.node]] = op.node;
}

bool can_fuse(const ClusterView& a, const ClusterView& b) {
  // Hierarchical views (contract §6) are placed level by level, never through one trie.
  if (a.hierarchy() || b.hierarchy()) return false;
  return a.seed() == b.seed() && a.hash() == b.hash() && a.weighted() == b.weighted();
}

KernelPlan compile_plan(const std::vector<const ClusterView*>& views, const PlaceOptions& options) {
  if (views.empty() || views.size() > 2 || (views.size() == 2 && !can_fuse(*views[0], *views[1])))
    throw std::logic_error("kernel plan: one view, or two that share seed, hash and rank rule");
  const ClusterView& first = *views[0];
  KernelPlan plan;
  const std::vector<std::string_view> ids = union_ids(views);
  plan.program = build_trie_program(ids);
  plan.fmix = first.hash() == HashMode::fnv1a_fmix;
  plan.weighted = first.weighted();
  // Domains matter only when some domain holds two nodes and more than one is chosen:
  // the best node overall is always its domain's representative.
  const std::uint32_t r = options.replicas;
  for (const ClusterView* v : views)
    plan.distinct = plan.distinct || (!options.distinct_label.empty() && r > 1 &&
                                      v->domain_count(options.distinct_label) < v->size());
  for (const ClusterView* v : views) plan.cuts = plan.cuts || v->has_cuts();
  for (const ClusterView* v : views) {
    plan.views.push_back(side_of(*v, ids, options, plan.weighted, plan.distinct, plan.cuts));
    plan.select = std::max(plan.select, plan.views.back().select);
  }
  // List 0: in every view with the same rank rule; list 1 + v: view v's other leaves.
  for (Op& op : plan.program.ops) {
    if (op.kind != kLeaf) continue;
    bool shared = true;
    for (const KernelView& side : plan.views)
      shared = shared && side.index[op.node] != kAbsent &&
               (!plan.weighted || side.weights[op.node] == plan.views[0].weights[op.node]) &&
               (!plan.cuts || cut_of(side, op.node) == cut_of(plan.views[0], op.node));
    op.lists = 0;
    if (shared) {
      op.lists = 1;
    } else {
      for (std::size_t v = 0; v < plan.views.size(); ++v)
        if (plan.views[v].index[op.node] != kAbsent) op.lists |= 2u << v;
    }
    for (std::uint32_t l = 0; l < 3; ++l) {
      if (((op.lists >> l) & 1) == 0) continue;
      if (plan.list_leaves[l]++ == 0) plan.list_first[l] = op.node;
    }
  }
  if (plan.weighted) assign_class_first(plan);
  return plan;
}

}  // namespace hrw::kernels
