// The benchmark workloads of hrw_bench and `hrw bench`: 16-byte keys and node-id sets, built
// once and cached (bench/README.md, "Names"; docs/bench.md).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"

namespace hrw::bench {

// prefix:   "node-000" ... "node-999" (8 bytes, the shared-prefix case the trie is for).
// noprefix: distinct random 8-byte ids over [0-9a-z] ("k3x9q0ab"): no common prefix
//           beyond what 36 first letters force, so the trie saves (almost) nothing.
enum class IdSet { prefix, noprefix };
const char* to_string(IdSet ids);

std::vector<std::string> node_ids(std::uint32_t n, IdSet ids);

// Zone label of node i (in generation order): z0..z3 round robin.
std::string zone_of(std::uint32_t i);
// Weight of node i in weighted views: 1, 1.25, 1.5, 1.75, 2, 1, ...
double weight_of(std::uint32_t i);

// Weight of node i of n in fine-weighted views: 1 + i / n, n distinct weights in [1, 2),
// as weights taken from measured capacities are (the kernels' gated path, not classes).
double fine_weight_of(std::uint32_t i, std::uint32_t n);

// A validated view of n nodes (cached; lives until exit). Every node has a zone label;
// weighted views give every node a weight (weight_of, or fine_weight_of when fine).
const ClusterView& view(std::uint32_t n, IdSet ids, bool weighted, HashMode hash,
                        bool fine = false);

// `count` distinct 16-byte keys: 16 lowercase hex digits of splitmix64(i) (cached).
const KeyBatch& keys(std::size_t count);

}  // namespace hrw::bench
