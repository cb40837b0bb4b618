// The scalar reference: the placement contract written once, plainly. Every fast path is
// checked against these functions; they favour obviousness over speed.
#pragma once
#include <cstdint>
#include <string_view>
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
