// Random cluster views for the plan tests (a base view and random changes of it), and the
// reference's holders of a key.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/reference.hpp"

namespace hrw::test {

inline ClusterSpec make_spec(int nodes, bool weighted, std::int64_t version) {
  ClusterSpec s;
  s.version = version;
  static const char* const kZones[] = {"z1", "z2", "z3"};
  for (int i = 0; i < nodes; ++i) {
    NodeSpec n;
    n.id = "node-" + std::to_string(i);
    if (weighted) n.weight = 1.0 + (i % 4);
    n.labels.emplace_back("zone", kZones[i % 3]);
    s.nodes.push_back(n);
  }
  return s;
}

// One random change, or several at once.
inline ClusterSpec mutate(ClusterSpec s, std::mt19937_64& rng, int changes) {
  s.version += 1;
  for (int c = 0; c < changes; ++c) {
    switch (rng() % 4) {
      case 0: {  // add
        NodeSpec n;
        n.id = "new-" + std::to_string(rng() % 1000000);
        if (s.nodes.front().weight) n.weight = 0.5 + static_cast<double>(rng() % 8);
        n.labels.emplace_back("zone", "z" + std::to_string(rng() % 4));
        if (std::none_of(s.nodes.begin(), s.nodes.end(), [&](auto& x) { return x.id == n.id; }))
          s.nodes.push_back(n);
        break;
      }
      case 1:  // remove
        if (s.nodes.size() > 4) s.nodes.erase(s.nodes.begin() + static_cast<long>(rng() % s.nodes.size()));
        break;
      case 2:  // reweight
        s.nodes[rng() % s.nodes.size()].weight = 0.25 + static_cast<double>(rng() % 10);
        break;
      default:  // relabel
        s.nodes[rng() % s.nodes.size()].labels = {{"zone", "z" + std::to_string(rng() % 4)}};
    }
  }
  return s;
}

// The reference's replica set of a key as ids (a distinct walk allows partial results).
inline std::vector<std::string> holders(const ClusterView& v, const std::string& key, std::uint32_t r,
                                 const std::string& label) {
  const std::vector<std::uint32_t> nodes =
      label.empty() ? reference::top_r(v, key, r) : reference::top_r_distinct(v, key, r, label, true).nodes;
  std::vector<std::string> ids;
  for (auto n : nodes) ids.push_back(v.node(n).id);
  return ids;
}

}  // namespace hrw::test
