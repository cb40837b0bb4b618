// The hierarchical clusters of `hrw verify` (contract §6), beside verify.cpp's flat ones.
#pragma once
#include <random>

#include "hrw/cluster_view.hpp"

namespace hrw::verify_tree {

// 1-4 levels (zone, rack, host, disk: "zone" always, so verify's distinct-zone request
// applies), uneven fan-out, one-node buckets, '/' and '=' in values, weighted or not.
ClusterSpec random_cluster(std::mt19937_64& rng);

// A plan's target view: nodes added (into existing or new buckets), removed, reweighted,
// moved to another bucket, or the hierarchy dropped or cut to fewer levels.
ClusterSpec changed_cluster(std::mt19937_64& rng, const ClusterSpec& from);

}  // namespace hrw::verify_tree
