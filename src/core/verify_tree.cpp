// Random hierarchical clusters for hrw::verify_targets (verify.cpp places and compares).
#include "verify_tree.hpp"

#include <algorithm>
#include <set>
#include <string>

#include <fmt/format.h>

namespace hrw::verify_tree {
namespace {

constexpr const char* kLabels[] = {"zone", "rack", "host", "disk"};

// A label value from a small alphabet (so buckets range from one node to many), with the
// name separators '/' and '=' among its bytes.
std::string random_value(std::mt19937_64& rng, std::size_t fanout) {
  static constexpr const char* kParts[] = {"a", "eu-1", "x/y", "k=v", "=", "/", "", "z"};
  return fmt::format("{}{}", kParts[rng() % 8], rng() % fanout);
}

void set_labels(std::mt19937_64& rng, NodeSpec& node, const std::vector<std::size_t>& fanout) {
  node.labels.clear();
  for (std::size_t j = 0; j < fanout.size(); ++j)
    node.labels.emplace_back(kLabels[j], random_value(rng, fanout[j]));
}

std::optional<double> random_weight(std::mt19937_64& rng, int mode) {
  if (mode == 0) return std::nullopt;
  if (mode == 1 && rng() % 3 != 0) return std::nullopt;  // some weights given, the rest 1
  return 0.01 + static_cast<double>(rng() % 10000) / 100.0;
}

std::vector<std::size_t> fanouts(const ClusterSpec& spec, std::mt19937_64& rng) {
  std::vector<std::size_t> f(spec.hierarchy ? spec.hierarchy->size() : 0);
  for (auto& x : f) x = 1 + rng() % 8;
  return f;
}

}  // namespace

ClusterSpec random_cluster(std::mt19937_64& rng) {
  ClusterSpec spec;
  spec.source = "verify";
  spec.seed = (rng() & 1) ? fmt::format("s{}", rng() % 1000) : std::string();
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  const std::size_t depth = 1 + rng() % 4;
  spec.hierarchy.emplace(kLabels, kLabels + depth);
  const std::vector<std::size_t> fanout = fanouts(spec, rng);
  const std::size_t n = rng() % 4 == 0 ? 1 + rng() % 8 : 9 + rng() % 1200;
  const int weight_mode = static_cast<int>(rng() % 3);
  for (std::size_t i = 0; i < n; ++i) {
    NodeSpec node;
    node.id = rng() % 4 == 0 ? fmt::format("n/{}=x", i) : fmt::format("node-{}", i);
    set_labels(rng, node, fanout);
    node.weight = random_weight(rng, weight_mode);
    spec.nodes.push_back(std::move(node));
  }
  std::shuffle(spec.nodes.begin(), spec.nodes.end(), rng);
  return spec;
}

ClusterSpec changed_cluster(std::mt19937_64& rng, const ClusterSpec& from) {
  ClusterSpec to = from;
  to.version = from.version + 1;
  bool weighted = false;
  for (const NodeSpec& n : to.nodes) weighted = weighted || n.weight.has_value();
  const std::vector<std::size_t> fanout = fanouts(to, rng);
  const auto changes = 1 + rng() % 31;  // bits: add, remove, reweight, move, hierarchy
  if (changes & 1) {
    std::set<std::string> ids;
    for (const NodeSpec& n : to.nodes) ids.insert(n.id);
    for (std::size_t k = 1 + rng() % 3; k > 0;) {
      NodeSpec node = to.nodes[rng() % to.nodes.size()];  // into an existing bucket, or
      if (rng() % 2) set_labels(rng, node, fanout);        // perhaps a new one
      node.id = fmt::format("new-{}", rng() % 100);
      if (!ids.insert(node.id).second) continue;
      if (weighted) node.weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
      to.nodes.push_back(std::move(node));
      --k;
    }
  }
  if ((changes & 2) && to.nodes.size() > 1)
    for (std::size_t k = 1 + rng() % std::min<std::size_t>(3, to.nodes.size() - 1); k > 0; --k)
      to.nodes.erase(to.nodes.begin() + static_cast<std::ptrdiff_t>(rng() % to.nodes.size()));
  if ((changes & 4) && (weighted || rng() % 8 == 0))
    for (std::size_t k = 1 + rng() % 3; k > 0; --k)
      to.nodes[rng() % to.nodes.size()].weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
  if (changes & 8)
    for (std::size_t k = 1 + rng() % 3; k > 0; --k) set_labels(rng, to.nodes[rng() % to.nodes.size()], fanout);
  if (changes & 16) {
    // Flat <-> hierarchical plans: no hierarchy, or only its top levels ("zone" stays).
    if (rng() % 2) to.hierarchy.reset();
    else to.hierarchy->resize(1 + rng() % to.hierarchy->size());
  }
  std::shuffle(to.nodes.begin(), to.nodes.end(), rng);
  return to;
}

}  // namespace hrw::verify_tree
