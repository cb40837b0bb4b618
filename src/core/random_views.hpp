// The one generator of random cluster views and keys, deterministic from a seed: `hrw
// verify` (src/core/verify.cpp) and the property tests (tests/support/random_cluster.hpp,
// tests/support/random_hierarchy.hpp) draw from it. What a shape leaves unset is drawn from the
// stream, in the order `hrw verify` has always drawn it, so verify's checks stay the same.
// Internal to the library (tests reach it through hrw_internal).
#pragma once
#include <cstddef>
#include <optional>
#include <random>
#include <string>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"

namespace hrw::gen {

// Bytes of a length in [min_len, max_len]: mostly arbitrary, 0x00 and 0xFF over-represented.
std::string random_bytes(std::mt19937_64& rng, std::size_t min_len, std::size_t max_len);

enum class IdStyle { numbered, padded, bytes, dense_trie, prefixed };
enum class Weights { none, some, all, extremes };

// A flat view (contract §1-§3). Unset: drawn. Defaults give `hrw verify`'s mix.
struct FlatShape {
  std::optional<std::size_t> min_nodes, max_nodes;  // both or neither; drawn: 1-20, 21-200, 201-2000
  std::optional<IdStyle> ids;
  std::optional<Weights> weights;
  bool zones = true;   // a "zone" label (1-6 values) on 6 nodes in 7
  bool racks = false;  // a "rack" label (r0-r6) on every node
};
ClusterSpec flat_cluster(std::mt19937_64& rng, const FlatShape& shape = {});

// Contract §9: one call in three puts cuts on about half of a flat view's nodes: low (a few
// percent of pairs fail), anywhere, or high (most keys clear no node: overflow). Otherwise
// the view is left as it is.
void add_cuts(std::mt19937_64& rng, ClusterSpec& spec);

// Change bits of a plan's target view.
enum Change : unsigned { kAdd = 1, kRemove = 2, kReweight = 4, kRelabel = 8, kHierarchy = 16 };

// A plan's target view of a flat view: 1 to 3 nodes added, removed, reweighted or
// relabelled (`changes` bits; drawn when unset), the same seed and hash mode. An explicit
// kReweight always reweights (an unweighted view becomes weighted).
ClusterSpec changed_flat(std::mt19937_64& rng, const ClusterSpec& from,
                         std::optional<unsigned> changes = {});

// A hierarchical view (contract §6): 1-4 levels (zone, rack, host, disk: "zone" always),
// uneven fan-out, one-node buckets, '/' and '=' in values. Unset: drawn.
struct TreeShape {
  std::optional<std::size_t> max_nodes;  // drawn: 1-8 or 9-1208
  std::optional<bool> weighted;          // drawn: none, some or all nodes weighted
};
ClusterSpec tree_cluster(std::mt19937_64& rng, const TreeShape& shape = {});

// A plan's target view of a hierarchical view: nodes added (into existing or new buckets),
// removed, reweighted, moved to another bucket, or the hierarchy dropped or cut.
ClusterSpec changed_tree(std::mt19937_64& rng, const ClusterSpec& from);

// Keys: all 16 bytes, or 0-24 bytes, or 0-24 with some up to 200.
KeyBatch random_keys(std::mt19937_64& rng, std::size_t count);

}  // namespace hrw::gen
