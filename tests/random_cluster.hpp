// Random cluster views and keys for property tests, deterministic from a seed.
#pragma once
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"

namespace hrw::test {

struct RandomClusterOptions {
  std::size_t min_nodes = 1, max_nodes = 40;
  bool weighted = false;
  bool labels = true;          // zone (3-5 values, some nodes without) and rack labels
  bool shared_prefix = true;   // "node-17" style ids rather than random bytes
};

inline std::string random_bytes(std::mt19937_64& rng, std::size_t min_len, std::size_t max_len) {
  std::uniform_int_distribution<std::size_t> len(min_len, max_len);
  std::string s(len(rng), '\0');
  for (char& c : s) c = static_cast<char>(rng() & 0xFF);
  return s;
}

inline ClusterSpec random_cluster(std::mt19937_64& rng, const RandomClusterOptions& o = {}) {
  ClusterSpec spec;
  spec.seed = (rng() & 1) ? random_bytes(rng, 0, 8) : "";
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  spec.version = static_cast<std::int64_t>(rng() % 100);
  std::uniform_int_distribution<std::size_t> count(o.min_nodes, o.max_nodes);
  const std::size_t n = count(rng);
  const int zones = 3 + static_cast<int>(rng() % 3);
  for (std::size_t i = 0; spec.nodes.size() < n; ++i) {
    NodeSpec node;
    node.id = o.shared_prefix ? "node-" + std::to_string(i) : random_bytes(rng, 1, 12);
    bool dup = false;
    for (auto& other : spec.nodes) dup = dup || other.id == node.id;
    if (dup) continue;
    if (o.weighted) node.weight = 0.25 + static_cast<double>(rng() % 1000) / 100.0;
    if (o.labels && rng() % 8 != 0)
      node.labels.emplace_back("zone", "z" + std::to_string(rng() % zones));
    if (o.labels) node.labels.emplace_back("rack", "r" + std::to_string(rng() % 7));
    spec.nodes.push_back(std::move(node));
  }
  std::shuffle(spec.nodes.begin(), spec.nodes.end(), rng);
  return spec;
}

}  // namespace hrw::test
