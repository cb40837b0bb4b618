// The Maglev lookup table (Eisenbud et al., NSDI 2016, §3.4, "Pseudocode 1"): every backend
// walks its own permutation of the M slots, offset = h1(name) mod M and
// skip = h2(name) mod (M - 1) + 1 (M prime, so every skip generates all slots); backends
// take turns claiming their next unclaimed slot until the table is full.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "hrw/compare.hpp"

namespace hrw::compare {

struct MaglevPermutation {
  std::uint64_t offset = 0;
  std::uint64_t skip = 1;
};

// h1 and h2 are XXH3-64 of the node id under two fixed seeds.
MaglevPermutation maglev_permutation(std::string_view id, std::uint64_t table_size);

// entry[slot] = list index of the backend owning the slot. Requires 1 <= nodes <= M.
std::vector<std::uint32_t> maglev_populate(const std::vector<MaglevPermutation>& backends,
                                           std::uint64_t table_size);

bool is_prime(std::uint64_t n);

}  // namespace hrw::compare
