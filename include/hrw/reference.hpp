// The scalar reference: the placement contract written once, plainly. Every fast path is
// checked against these functions; they favour obviousness over speed.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "hrw/cluster_view.hpp"

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

// Every node, best first.
std::vector<PairScore> rank(const ClusterView& view, std::string_view key);
std::uint32_t owner(const ClusterView& view, std::string_view key);
// The first R of the ranking. Throws InputError when R < 1 or R > node count.
std::vector<std::uint32_t> top_r(const ClusterView& view, std::string_view key, std::uint32_t r);

struct DistinctReplicas {
  std::vector<std::uint32_t> nodes;
  bool partial = false;  // fewer than R domains exist and the caller allowed it
};
// Walks the ranking and accepts a node only if no accepted node shares its LABEL value.
// Fewer than R domains: InputError naming R and the domain count, unless allow_partial.
DistinctReplicas top_r_distinct(const ClusterView& view, std::string_view key, std::uint32_t r,
                                std::string_view label, bool allow_partial);

// Validates R against the view (and the domain count for a label); shared with the batch
// engine so that both refuse the same requests with the same words.
void check_replicas(const ClusterView& view, std::uint32_t r, std::string_view label,
                    bool allow_partial);

}  // namespace hrw::reference
