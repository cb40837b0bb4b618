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

// What a plan's target view changes (bits): add, remove, reweight, relabel nodes.
enum Change : unsigned { kAdd = 1, kRemove = 2, kReweight = 4, kRelabel = 8, kAllChanges = 15 };

// `from` changed the way `changes` says (1 to 3 nodes each), same seed and hash mode.
// Reweighting an unweighted view gives weights to some nodes (it becomes weighted).
inline ClusterSpec changed_cluster(std::mt19937_64& rng, const ClusterSpec& from, unsigned changes) {
  ClusterSpec to = from;
  to.version = from.version + 1;
  auto pick = [&]() -> NodeSpec& { return to.nodes[rng() % to.nodes.size()]; };
  if (changes & kAdd)
    for (std::size_t k = 1 + rng() % 3; k > 0;) {
      NodeSpec node;
      node.id = (rng() & 1) ? "node-" + std::to_string(from.nodes.size() + rng() % 20)
                            : random_bytes(rng, 1, 12);
      bool dup = false;
      for (auto& other : to.nodes) dup = dup || other.id == node.id;
      if (dup) continue;
      if (from.nodes[0].weight) node.weight = 0.25 + static_cast<double>(rng() % 1000) / 100.0;
      node.labels.emplace_back("zone", "z" + std::to_string(rng() % 5));
      to.nodes.push_back(std::move(node));
      --k;
    }
  if ((changes & kRemove) && to.nodes.size() > 1)
    for (std::size_t k = 1 + rng() % std::min<std::size_t>(3, to.nodes.size() - 1); k > 0; --k)
      to.nodes.erase(to.nodes.begin() + static_cast<std::ptrdiff_t>(rng() % to.nodes.size()));
  if (changes & kReweight)
    for (std::size_t k = 1 + rng() % 3; k > 0; --k)
      pick().weight = 0.25 + static_cast<double>(rng() % 1000) / 100.0;
  if (changes & kRelabel)
    for (std::size_t k = 1 + rng() % 3; k > 0; --k) {
      NodeSpec& node = pick();
      node.labels.clear();
      if (rng() % 4 != 0) node.labels.emplace_back("zone", "z" + std::to_string(rng() % 6));
    }
  std::shuffle(to.nodes.begin(), to.nodes.end(), rng);
  return to;
}

}  // namespace hrw::test
