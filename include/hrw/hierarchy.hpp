// Hierarchical views (contract §6): buckets per level of a list of labels, top level first.
// A view with "hierarchy": ["zone", "rack"] ranks zones, then the racks of each zone, then
// the nodes of each rack, each by rendezvous; an owner costs Z + K + M pair-scores instead
// of N = Z·K·M.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrw {

struct Bucket {
  std::string name;     // "L0=v0/L1=v1/…/Lj=vj", the bytes hashed for the bucket's score
  double weight = 0;    // Σ weights of its nodes (1 each when unweighted), in node index order
  std::uint32_t parent = 0xFFFFFFFFu;   // index in the level above; none at level 0
  // Buckets of the next level, or (last level) node indices; ascending, which is memcmp
  // order of their names or ids, the tie order.
  std::vector<std::uint32_t> children;
};

class Hierarchy {
 public:
  // Builds the buckets of `labels` over the nodes (id-sorted, as ClusterView stores them):
  // node_labels[i] holds node i's values of labels, in the same order.
  Hierarchy(std::vector<std::string> labels,
            const std::vector<std::vector<std::string_view>>& node_labels,
            const std::vector<double>& node_weights);

  const std::vector<std::string>& labels() const { return labels_; }
  std::size_t depth() const { return labels_.size(); }
  // Level j's buckets, in memcmp order of their names.
  const std::vector<Bucket>& level(std::size_t j) const { return levels_[j]; }
  // The bucket node `node` is in at level j.
  std::uint32_t bucket_of(std::size_t j, std::uint32_t node) const { return node_bucket_[j][node]; }
  const std::vector<std::uint32_t>& buckets_of_level(std::size_t j) const { return node_bucket_[j]; }
  // The level of a hierarchy label; nullopt for any other label.
  std::optional<std::size_t> level_of(std::string_view label) const;

 private:
  std::vector<std::string> labels_;
  std::vector<std::vector<Bucket>> levels_;
  std::vector<std::vector<std::uint32_t>> node_bucket_;
};

}  // namespace hrw
