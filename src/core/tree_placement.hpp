// The batch engine for hierarchical views (contract §6): the flat kernels (run_batch) run
// once per level over one plan per bucket, keys grouped by the bucket they chose. Built
// once per BatchPlacer; place_chunk is const and thread-safe (scratch is per thread).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "kernel_api.hpp"

namespace hrw::kernels {

class TreePlacer {
 public:
  // `options` validated (validate_request), options.replicas <= kMaxKernelReplicas, and
  // the view has a hierarchy.
  TreePlacer(const ClusterView& view, const PlaceOptions& options);

  // Keys per chunk: larger than the flat engine's, so that a bucket's group of keys fills
  // the kernels' vectors (10 x 10 x 100: ~160 keys per rack).
  static constexpr std::size_t kChunk = 32768;

  // Keys [lo, hi) into out.nodes (and out.scores when asked), already sized by the caller;
  // ranks a partial result has no node for are left as they are (kNoNode).
  void place_chunk(const KeyView& keys, std::size_t lo, std::size_t hi, Placement& out) const;

 private:
  // One parent's choice among its children: a plan over the children's names (buckets,
  // ranked by det::ln(u)/W) or ids (nodes, the view's own rule), children in memcmp order.
  struct Choice {
    KernelPlan plan;
    const std::vector<std::uint32_t>* children = nullptr;  // local index -> global index
  };
  // levels_[c]: the choices that pick level-c entities (c = 0: the top buckets, from the
  // root; c = depth: nodes), one per bucket of level c - 1 (one root choice for c = 0).
  std::vector<std::vector<Choice>> levels_;
  std::vector<std::uint32_t> top_buckets_;  // 0 .. level(0).size() - 1, the root's children
  std::uint32_t seed_state_ = 0;
  std::uint32_t replicas_ = 1;
  bool with_scores_ = false;
  bool weighted_ = false;
};

}  // namespace hrw::kernels
