// The buckets of a hierarchical view (contract §6). ClusterView validates the labels first
// (every node carries every hierarchy label); this file only groups.
#include "hrw/hierarchy.hpp"

#include <algorithm>
#include <map>

#include "hrw/cluster_view.hpp"

namespace hrw {

namespace {

struct NameLess {
  bool operator()(const std::string& a, const std::string& b) const { return id_less(a, b); }
};

}  // namespace

Hierarchy::Hierarchy(std::vector<std::string> labels,
                     const std::vector<std::vector<std::string_view>>& node_labels,
                     const std::vector<double>& node_weights)
    : labels_(std::move(labels)) {
  const std::size_t depth = labels_.size(), n = node_labels.size();
  levels_.resize(depth);
  node_bucket_.assign(depth, std::vector<std::uint32_t>(n));
  std::vector<std::string> prefix(n);  // each node's bucket name at the current level
  for (std::size_t j = 0; j < depth; ++j) {
    // Number the distinct names of this level in memcmp order.
    std::map<std::string, std::uint32_t, NameLess> numbers;
    for (std::size_t i = 0; i < n; ++i) {
      if (j > 0) prefix[i] += '/';
      prefix[i] += labels_[j];
      prefix[i] += '=';
      prefix[i] += node_labels[i][j];
      numbers.emplace(prefix[i], 0);
    }
    std::uint32_t next = 0;
    for (auto& [name, number] : numbers) {
      number = next++;
      levels_[j].push_back(Bucket{name, 0.0, 0xFFFFFFFFu, {}});
    }
    for (std::size_t i = 0; i < n; ++i) node_bucket_[j][i] = numbers.at(prefix[i]);
  }
  // Weights add up in node index order (memcmp order of ids), the contract's fixed order.
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < depth; ++j) levels_[j][node_bucket_[j][i]].weight += node_weights[i];
  for (std::size_t j = 0; j < depth; ++j) {
    // (bucket, child) pairs, sorted and unique: children ascend, which is memcmp order.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint32_t child =
          j + 1 < depth ? node_bucket_[j + 1][i] : static_cast<std::uint32_t>(i);
      edges[i] = {node_bucket_[j][i], child};
      if (j > 0) levels_[j][node_bucket_[j][i]].parent = node_bucket_[j - 1][i];
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    for (auto [bucket, child] : edges) levels_[j][bucket].children.push_back(child);
  }
}

std::optional<std::size_t> Hierarchy::level_of(std::string_view label) const {
  for (std::size_t j = 0; j < labels_.size(); ++j)
    if (labels_[j] == label) return j;
  return std::nullopt;
}

}  // namespace hrw
