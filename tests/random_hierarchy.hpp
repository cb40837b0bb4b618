// Random hierarchical views (contract §6) for property tests: 1-4 levels, uneven fan-out,
// one-node buckets, values with '/' and '=' in them, weighted or not.
#pragma once
#include <random>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"

namespace hrw::test {

inline ClusterSpec random_hierarchy(std::mt19937_64& rng, std::size_t max_nodes = 300,
                                    bool weighted = false) {
  static const char* kLabels[] = {"zone", "rack", "host", "disk"};
  static const char* kValueParts[] = {"a", "b", "eu-1", "x/y", "k=v", "=", "/", "z"};
  ClusterSpec spec;
  spec.seed = (rng() & 1) ? "s" + std::to_string(rng() % 100) : "";
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  const std::size_t depth = 1 + rng() % 4;
  spec.hierarchy.emplace(kLabels, kLabels + depth);
  const std::size_t n = 1 + rng() % max_nodes;
  // Fan-out per level, uneven: a level's value is drawn from a small alphabet, so buckets
  // range from one node to many.
  std::vector<std::size_t> fanout(depth);
  for (auto& f : fanout) f = 1 + rng() % 6;
  for (std::size_t i = 0; i < n; ++i) {
    NodeSpec node;
    node.id = (rng() % 4 == 0) ? "n/" + std::to_string(i) + "=x" : "node-" + std::to_string(i);
    for (std::size_t j = 0; j < depth; ++j) {
      std::string value = kValueParts[rng() % 8];
      value += std::to_string(rng() % fanout[j]);
      node.labels.emplace_back(kLabels[j], value);
    }
    if (weighted && rng() % 5 != 0) node.weight = 0.25 + static_cast<double>(rng() % 800) / 100.0;
    spec.nodes.push_back(std::move(node));
  }
  return spec;
}

}  // namespace hrw::test
