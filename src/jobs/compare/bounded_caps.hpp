// The capacity of bounded-loads placement (Mirrokni, Thorup, Zadimoghaddam, "Consistent
// Hashing with Bounded Loads", 2018): no node takes more than ceil(c x its fair load).
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hrw/compare.hpp"

namespace hrw::compare {

// cap_i = ceil(c x keys x share_i). With c > 1 the caps sum to more than `keys`, so every
// key finds room; shares follow the weights only when the scheme uses them.
inline std::vector<std::uint64_t> bounded_caps(const NodeList& nodes, std::size_t keys,
                                               double load_factor, bool use_weights) {
  std::vector<std::uint64_t> caps(nodes.size());
  const std::vector<double> shares = nodes.shares();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const double share = use_weights ? shares[i] : 1.0 / static_cast<double>(nodes.size());
    caps[i] = static_cast<std::uint64_t>(std::ceil(load_factor * static_cast<double>(keys) * share));
  }
  return caps;
}

}  // namespace hrw::compare
