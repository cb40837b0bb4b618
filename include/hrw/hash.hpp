// FNV-1a 32 and the MurmurHash3 finaliser: the two hash steps of the placement contract (§2).
#pragma once
#include <cstdint>
#include <string_view>

namespace hrw {

inline constexpr std::uint32_t kFnvOffsetBasis = 0x811C9DC5u;
inline constexpr std::uint32_t kFnvPrime = 0x01000193u;

// Continues an FNV-1a state with more bytes, so the state after `seed ‖ key` can be
// computed once and then extended with each node id.
constexpr std::uint32_t fnv1a32_continue(std::uint32_t state, std::string_view bytes) {
  for (unsigned char b : bytes) state = (state ^ b) * kFnvPrime;
  return state;
}

constexpr std::uint32_t fnv1a32(std::string_view bytes) {
  return fnv1a32_continue(kFnvOffsetBasis, bytes);
}

constexpr std::uint32_t fmix32(std::uint32_t h) {
  h ^= h >> 16;
  h *= 0x85EBCA6Bu;
  h ^= h >> 13;
  h *= 0xC2B2AE35u;
  h ^= h >> 16;
  return h;
}

}  // namespace hrw
