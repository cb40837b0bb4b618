// The one generator of random views and keys (random_views.hpp). The flat draws were
// hrw verify's flat clusters, the tree draws its hierarchical ones: unchanged when a shape
// leaves a field unset, so `hrw verify` checks the same pairs as before.
#include "random_views.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace hrw::gen {

namespace {

std::string random_id(std::mt19937_64& rng, int style, std::size_t i) {
  static constexpr char kChain[] = {'a', 'b', '\0', '\xFF'};
  switch (style) {
    case 0: return "node-" + std::to_string(i);
    case 1: return fmt::format("node-{:03}", i);
    case 2: return random_bytes(rng, 1, 12);
    case 3: {  // dense trie: ids from a 4-letter alphabet, many prefixes of each other
      std::string s(1 + rng() % 8, 'a');
      for (char& c : s) c = kChain[rng() % 4];
      return s;
    }
    default: {
      static constexpr std::string_view kPrefixes[] = {"cache-eu-1-", "cache-eu-2-", "cache-us-",
                                                       "db"};
      std::string s(kPrefixes[rng() % 4]);
      s += random_bytes(rng, 0, 4);
      return s;
    }
  }
}

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

std::string random_bytes(std::mt19937_64& rng, std::size_t min_len, std::size_t max_len) {
  std::string s(min_len + rng() % (max_len - min_len + 1), '\0');
  for (char& c : s) {
    const auto v = rng();
    // Mostly arbitrary bytes, with 0x00 and 0xFF over-represented.
    c = static_cast<char>((v & 0x700) == 0 ? 0x00 : (v & 0x700) == 0x100 ? 0xFF : (v & 0xFF));
  }
  return s;
}

ClusterSpec flat_cluster(std::mt19937_64& rng, const FlatShape& shape) {
  ClusterSpec spec;
  spec.source = "verify";
  spec.seed = (rng() & 1) ? random_bytes(rng, 0, 16) : std::string();
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  std::size_t n = 0;
  if (shape.min_nodes && shape.max_nodes) {
    n = *shape.min_nodes + rng() % (*shape.max_nodes - *shape.min_nodes + 1);
  } else {
    const auto size_class = rng() % 10;
    n = size_class < 5   ? 1 + rng() % 20
        : size_class < 8 ? 21 + rng() % 180
                         : 201 + rng() % 1800;
  }
  const int style = shape.ids ? static_cast<int>(*shape.ids) : static_cast<int>(rng() % 5);
  // Drawn: 0,1 unweighted, 2 all weighted, 3 some, 4 extremes.
  const int weight_mode = !shape.weights                      ? static_cast<int>(rng() % 5)
                          : *shape.weights == Weights::none   ? 0
                          : *shape.weights == Weights::all    ? 2
                          : *shape.weights == Weights::some   ? 3
                                                              : 4;
  const int zones = 1 + static_cast<int>(rng() % 6);
  std::set<std::string> seen;
  std::size_t attempts = 0;
  for (std::size_t i = 0; spec.nodes.size() < n; ++i) {
    // Style 3 has only ~87k distinct ids; fall back to random bytes if it runs dry.
    std::string id = random_id(rng, ++attempts > 50 * n ? 2 : style, i);
    if (id.empty() || !seen.insert(id).second) continue;
    NodeSpec node;
    node.id = std::move(id);
    if (weight_mode == 2) {
      node.weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
    } else if (weight_mode == 3) {  // only some weights given; the rest are 1
      if (rng() % 3 == 0) node.weight = std::ldexp(1.0 + (rng() % 1000) / 1000.0, int(rng() % 7) - 3);
    } else if (weight_mode == 4) {  // extremes: the accepted range's ends among ordinary weights
      static constexpr double kW[] = {kMinWeight, 1e-6, 0.5, 1.0, 3.0, 1e6, kMaxWeight};
      node.weight = kW[rng() % 7];
    }
    // fmt, not "z" + std::to_string(...): g++ 12 warns falsely (-Wrestrict) on the latter.
    if (shape.zones && rng() % 7 != 0)
      node.labels.emplace_back("zone", fmt::format("z{}", rng() % zones));
    if (shape.racks) node.labels.emplace_back("rack", fmt::format("r{}", rng() % 7));
    spec.nodes.push_back(std::move(node));
  }
  std::shuffle(spec.nodes.begin(), spec.nodes.end(), rng);
  return spec;
}

void add_cuts(std::mt19937_64& rng, ClusterSpec& spec) {
  if (rng() % 3 != 0) return;
  const auto mode = rng() % 3;
  for (NodeSpec& node : spec.nodes) {
    if (rng() % 2) continue;
    node.cut = mode == 0   ? static_cast<std::uint32_t>(rng() % (1u << 28))
               : mode == 1 ? static_cast<std::uint32_t>(rng())
                           : 0xF0000000u + static_cast<std::uint32_t>(rng() % (1u << 28));
  }
}

// The target view of a plan: nodes added, removed, reweighted or relabelled, or several of
// those at once; the same seed and hash mode, so hrw plan fuses the two placements (unless
// a reweight makes an unweighted view weighted: then it falls back to two).
ClusterSpec changed_flat(std::mt19937_64& rng, const ClusterSpec& from,
                         std::optional<unsigned> given) {
  ClusterSpec to = from;
  to.version = from.version + 1;
  bool weighted = false;
  for (const NodeSpec& n : to.nodes) weighted = weighted || n.weight.has_value();
  const auto changes = given ? *given : 1 + rng() % 15;  // bits: add, remove, reweight, relabel
  if (changes & 1) {
    std::set<std::string> ids;
    for (const NodeSpec& n : to.nodes) ids.insert(n.id);
    for (std::size_t k = 1 + rng() % 3; k > 0;) {
      NodeSpec node;
      node.id = rng() % 2 ? fmt::format("node-{}", to.nodes.size() + rng() % 50) : random_bytes(rng, 1, 12);
      if (!ids.insert(node.id).second) continue;
      if (weighted) node.weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
      if (rng() % 7 != 0) node.labels.emplace_back("zone", fmt::format("z{}", rng() % 6));
      to.nodes.push_back(std::move(node));
      --k;
    }
  }
  if ((changes & 2) && to.nodes.size() > 1)
    for (std::size_t k = 1 + rng() % std::min<std::size_t>(3, to.nodes.size() - 1); k > 0; --k)
      to.nodes.erase(to.nodes.begin() + static_cast<std::ptrdiff_t>(rng() % to.nodes.size()));
  if ((changes & 4) && (given || weighted || rng() % 8 == 0))
    for (std::size_t k = 1 + rng() % 3; k > 0; --k)
      to.nodes[rng() % to.nodes.size()].weight = 0.01 + static_cast<double>(rng() % 10000) / 100.0;
  if (changes & 8)
    for (std::size_t k = 1 + rng() % 3; k > 0; --k) {
      NodeSpec& node = to.nodes[rng() % to.nodes.size()];
      node.labels.clear();
      if (rng() % 5 != 0) node.labels.emplace_back("zone", fmt::format("z{}", rng() % 6));
    }
  std::shuffle(to.nodes.begin(), to.nodes.end(), rng);
  return to;
}

ClusterSpec tree_cluster(std::mt19937_64& rng, const TreeShape& shape) {
  ClusterSpec spec;
  spec.source = "verify";
  spec.seed = (rng() & 1) ? fmt::format("s{}", rng() % 1000) : std::string();
  spec.hash = (rng() & 1) ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  const std::size_t depth = 1 + rng() % 4;
  spec.hierarchy.emplace(kLabels, kLabels + depth);
  const std::vector<std::size_t> fanout = fanouts(spec, rng);
  const std::size_t n = shape.max_nodes      ? 1 + rng() % *shape.max_nodes
                        : rng() % 4 == 0 ? 1 + rng() % 8
                                         : 9 + rng() % 1200;
  // Drawn: 0 unweighted, 1 some weights, 2 all.
  const int weight_mode = shape.weighted ? (*shape.weighted ? 1 : 0) : static_cast<int>(rng() % 3);
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

ClusterSpec changed_tree(std::mt19937_64& rng, const ClusterSpec& from) {
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

KeyBatch random_keys(std::mt19937_64& rng, std::size_t count) {
  KeyBatch keys;
  const auto mode = rng() % 3;
  for (std::size_t i = 0; i < count; ++i) {
    if (mode == 0)
      keys.add(random_bytes(rng, 16, 16));
    else if (mode == 1 || rng() % 4 != 0)
      keys.add(random_bytes(rng, 0, 24));
    else
      keys.add(random_bytes(rng, 0, 200));
  }
  return keys;
}

}  // namespace hrw::gen
