// Jump consistent hash, exactly as published by Lamping & Veach, "A Fast, Minimal Memory,
// Consistent Hash Algorithm" (2014), Figure 1: a 64-bit LCG decides, bucket count by bucket
// count, whether the key jumps forward. Only the type names are changed.
#pragma once
#include <cstdint>

namespace hrw::compare {

inline std::int32_t jump_consistent_hash(std::uint64_t key, std::int32_t num_buckets) {
  std::int64_t b = -1, j = 0;
  while (j < num_buckets) {
    b = j;
    key = key * 2862933555777941757ULL + 1;
    j = static_cast<std::int64_t>((b + 1) *
                                  (static_cast<double>(1LL << 31) /
                                   static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<std::int32_t>(b);
}

}  // namespace hrw::compare
