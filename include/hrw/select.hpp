// hrw select's audit of one key: every node's rank and score, the owner and, when asked,
// the replicas. Its table and JSON forms are in output.hpp; bindings return the JSON fields.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/reference.hpp"

namespace hrw {

struct SelectRequest {
  std::uint32_t replicas = 0;  // 0: not asked for (1 when a distinct label is given)
  std::optional<std::string> distinct;  // nullopt: not given (an empty label given is refused)
  bool partial = false;
};

struct Selection {
  std::string key;
  std::vector<reference::PairScore> ranking;  // every node, best first
  std::uint32_t replicas = 0;                 // as asked (or the view's rule); 0: no replica list
  std::string distinct;                       // the distinct label used (asked or the rule's)
  std::optional<std::string> warning;         // contract §8: some nodes lack the distinct label
  std::vector<std::uint32_t> replica_nodes;   // node indices, best first
  bool partial = false;                       // fewer domains than replicas (allowed)
  std::vector<reference::BucketScore> path;   // hierarchical view: the owner's buckets
  // Contract §9: the owner is the best-ranked node that clears the key (rank 1 without
  // cuts); overflow: an owner or replica that does not clear it.
  std::uint32_t owner = kNoNode;
  bool overflow = false;
};

// Validates the request (hrw::validate_request) when replicas are asked for. A view with a
// rule (contract §8) selects by it: replicas, distinct and partial given in the request
// must agree with it (InputError otherwise).
Selection select_key(const ClusterView& view, std::string_view key, const SelectRequest& request);

}  // namespace hrw
