// Random hierarchical views (contract §6) for property tests: the library's one generator
// (src/core/random_views.hpp): 1-4 levels, uneven fan-out, one-node buckets, values with
// '/' and '=' in them, weighted or not.
#pragma once
#include <random>

#include "hrw/cluster_view.hpp"
#include "random_views.hpp"  // src/core (hrw_internal)

namespace hrw::test {

inline ClusterSpec random_hierarchy(std::mt19937_64& rng, std::size_t max_nodes = 300,
                                    bool weighted = false) {
  return gen::tree_cluster(rng, {.max_nodes = max_nodes, .weighted = weighted});
}

}  // namespace hrw::test
