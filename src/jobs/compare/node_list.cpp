// Node lists in the user's order, and the contract's view built from one.
#include <fmt/format.h>

#include "hrw/compare.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {

double NodeList::total_weight() const {
  double sum = 0;
  for (double w : weights) sum += w;
  return sum;
}

std::vector<double> NodeList::shares() const {
  const double total = total_weight();
  std::vector<double> out;
  out.reserve(weights.size());
  for (double w : weights) out.push_back(w / total);
  return out;
}

NodeList numbered_nodes(std::size_t count, const std::string& source) {
  if (count == 0) throw InputError(fmt::format("{}: the node count must be at least 1", source));
  NodeList list;
  list.source = source;
  for (std::size_t i = 0; i < count; ++i) list.ids.push_back(fmt::format("node-{}", i));
  list.weights.assign(count, 1.0);
  return list;
}

NodeList node_list(const ClusterSpec& spec) {
  (void)ClusterView(spec);  // the one validation: ids, duplicates, weights
  NodeList list;
  list.source = spec.source;
  list.seed = spec.seed;
  list.hash = spec.hash;
  list.hierarchy = spec.hierarchy;
  for (const auto& node : spec.nodes) {
    list.labels.push_back(node.labels);
    list.ids.push_back(node.id);
    list.weights.push_back(node.weight.value_or(1.0));
    list.weighted = list.weighted || node.weight.has_value();
  }
  return list;
}

ClusterView to_cluster_view(const NodeList& nodes, bool use_weights, HashMode hash) {
  ClusterSpec spec;
  spec.source = nodes.source;
  spec.seed = nodes.seed;
  spec.hash = hash;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    NodeSpec node;
    node.id = nodes.ids[i];
    // Every weight explicit: a weighted scheme ranks by ln(u)/w even when all weights are 1.
    if (use_weights) node.weight = nodes.weights[i];
    spec.nodes.push_back(std::move(node));
  }
  return ClusterView(std::move(spec));
}

}  // namespace hrw::compare
