// The key hash of the alternative schemes: XXH3-64 of the key bytes, unseeded. One fast,
// well-mixed hash for all of them, so differences come from the schemes, not the hashes.
#pragma once
#include <cstdint>
#include <string_view>

#include <xxhash.h>

namespace hrw::compare {

inline std::uint64_t key_hash(std::string_view key) {
  return XXH3_64bits(key.data(), key.size());
}

// A second, independent hash of the same bytes (Maglev needs offset and skip).
inline std::uint64_t key_hash_seeded(std::string_view key, std::uint64_t seed) {
  return XXH3_64bits_withSeed(key.data(), key.size(), seed);
}

}  // namespace hrw::compare
