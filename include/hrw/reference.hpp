// The scalar reference: the placement contract written once, plainly. Every fast path is
// checked against these functions; they favour obviousness over speed.
#pragma once
#include <cstdint>
#include <string_view>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"

namespace hrw::reference {

struct PairScore {
  std::uint32_t node = kNoNode;
  std::uint32_t fnv = 0;     // FNV-1a32(seed ‖ key ‖ id)
  std::uint32_t r = 0;       // after the hash mode (fmix32 or identity)
  double rank_key = 0;       // what the ranking compares: r, or ln(u)/w when weighted
  double score = 0;          // what is reported: r, or u^(1/w) when weighted
};

PairScore score_pair(const ClusterView& view, std::string_view key, std::uint32_t node);

// True when a ranks before b: higher rank key, ties to the memcmp-smaller id.
bool ranks_before(const ClusterView& view, const PairScore& a, const PairScore& b);

// Contract §6, a bucket of a hierarchical view: h = FNV1a32(seed ‖ key ‖ name), r per the
// hash mode, rank key det::ln(u) / W always (W = the bucket's weight), score u^(1/W).
struct BucketScore {
  std::size_t level = 0;
  std::uint32_t bucket = 0;  // index in Hierarchy::level(level)
  std::uint32_t fnv = 0;
  std::uint32_t r = 0;
  double rank_key = 0;
  double score = 0;
};
BucketScore score_bucket(const ClusterView& view, std::string_view key, std::size_t level,
                         std::uint32_t bucket);
// Higher rank key first; ties to the memcmp-smaller name.
bool bucket_ranks_before(const ClusterView& view, const BucketScore& a, const BucketScore& b);
// The owner's path in a hierarchical view: the chosen bucket of every level, top first.
std::vector<BucketScore> owner_path(const ClusterView& view, std::string_view key);

// Every node, best first (for a hierarchical view: the tree ranking of §6, depth first).
std::vector<PairScore> rank(const ClusterView& view, std::string_view key);
std::uint32_t owner(const ClusterView& view, std::string_view key);
// The first R of the ranking (fewer when R exceeds the node count). The reference computes
// what it is asked: requests are validated once, by hrw::validate_request (placement.hpp).
std::vector<std::uint32_t> top_r(const ClusterView& view, std::string_view key, std::uint32_t r);

struct DistinctReplicas {
  std::vector<std::uint32_t> nodes;
  bool partial = false;  // fewer than R domains exist and the caller allowed it
};
// Walks the ranking and accepts a node only if no accepted node shares its LABEL value.
// Fewer than R domains: InputError naming R and the domain count, unless allow_partial.
DistinctReplicas top_r_distinct(const ClusterView& view, std::string_view key, std::uint32_t r,
                                std::string_view label, bool allow_partial);

// The error for "distinct LABEL" when the view has fewer than R domains: thrown by the walk
// above and by validate_request, so both refuse with the same words.
InputError too_few_domains(const ClusterView& view, std::uint32_t r, std::string_view label,
                           std::uint32_t domains);

}  // namespace hrw::reference

// ---- Contract §9: capacity cuts (src/core/reference_cuts.cpp) ----
namespace hrw::reference {

// Node s.node clears the key of s when s.r >= its cut.
bool clears(const ClusterView& view, const PairScore& s);

struct CutReplicas {
  std::vector<std::uint32_t> nodes;  // accepted order: clearing nodes first, by rank
  bool overflow = false;  // some accepted node does not clear the key (fewer than R cleared)
  bool partial = false;   // fewer than R domains exist and the caller allowed it
};
// §9 placement: walk the ranking and accept the first R nodes that clear the key (with the
// distinct walk when `label` is not empty); if fewer than R, continue over the nodes that
// did not clear, in ranking order, with the same distinct rule. R = 1: the best-ranked node
// that clears the key, else rank 1. Too few domains: as top_r_distinct.
CutReplicas place_with_cuts(const ClusterView& view, std::string_view key, std::uint32_t r,
                            std::string_view label = {}, bool allow_partial = false);

// §9 capacities: floor((1 + eps) × (w_i / Σw) × L) in binary64, in that order (Σw summed in
// memcmp order of the ids, w_i = 1 when unweighted), as an integer (saturating at 2^64 − 1).
std::vector<std::uint64_t> capacities(const ClusterView& view, std::uint64_t total_load,
                                      double eps);

// §9 balanced cuts by key-proposing deferred acceptance, R = 1, written straight from the
// contract: one key at a time in the given order, a node's proposers kept sorted by
// (r desc, memcmp-smaller key first). Project rule where §9 is silent: a node that rejected
// keys but holds none (capacity 0) gets cut 4294967295.
struct BalancedCuts {
  std::vector<std::uint32_t> cuts;      // per node index
  std::vector<std::uint64_t> capacity;  // per node index
  std::vector<std::uint64_t> load;      // per node: the load of the keys it holds
  std::vector<std::uint32_t> holder;    // per key: the node holding it, kNoNode = overflow
  std::uint64_t overflow_keys = 0;
};
BalancedCuts balanced_cuts(const ClusterView& view, const std::vector<std::string>& keys,
                           const std::vector<std::uint64_t>& loads, double eps);

}  // namespace hrw::reference
