// Random cluster views and keys for property tests, deterministic from a seed: the test
// suite's words for the library's one generator (src/core/random_views.hpp), which
// `hrw verify` draws from too.
#pragma once
#include <random>
#include <string>

#include "hrw/cluster_view.hpp"
#include "random_views.hpp"  // src/core (hrw_internal)

namespace hrw::test {

struct RandomClusterOptions {
  std::size_t min_nodes = 1, max_nodes = 40;
  bool weighted = false;
  bool labels = true;          // zone (on 6 nodes in 7) and rack labels
  bool shared_prefix = true;   // "node-17" style ids rather than random bytes
};

using gen::random_bytes;

inline ClusterSpec random_cluster(std::mt19937_64& rng, const RandomClusterOptions& o = {}) {
  gen::FlatShape shape;
  shape.min_nodes = o.min_nodes;
  shape.max_nodes = o.max_nodes;
  shape.ids = o.shared_prefix ? gen::IdStyle::numbered : gen::IdStyle::bytes;
  shape.weights = o.weighted ? gen::Weights::all : gen::Weights::none;
  shape.zones = o.labels;
  shape.racks = o.labels;
  return gen::flat_cluster(rng, shape);
}

// What a plan's target view changes (bits): add, remove, reweight, relabel nodes.
using gen::kAdd;
using gen::kRemove;
using gen::kReweight;
using gen::kRelabel;
inline constexpr unsigned kAllChanges = kAdd | kRemove | kReweight | kRelabel;

// `from` changed the way `changes` says (1 to 3 nodes each), same seed and hash mode.
// Reweighting an unweighted view gives weights to some nodes (it becomes weighted).
inline ClusterSpec changed_cluster(std::mt19937_64& rng, const ClusterSpec& from, unsigned changes) {
  return gen::changed_flat(rng, from, changes);
}

}  // namespace hrw::test
