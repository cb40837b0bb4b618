#include "compare/maglev_table.hpp"

#include <stdexcept>

#include "compare/key_hash.hpp"

namespace hrw::compare {

namespace {
// Two arbitrary, fixed seeds: h1 and h2 must be independent hashes of the same name.
constexpr std::uint64_t kOffsetSeed = 0x6d61676c65763a31ull;  // "maglev:1"
constexpr std::uint64_t kSkipSeed = 0x6d61676c65763a32ull;    // "maglev:2"
constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
}  // namespace

MaglevPermutation maglev_permutation(std::string_view id, std::uint64_t table_size) {
  return {key_hash_seeded(id, kOffsetSeed) % table_size,
          key_hash_seeded(id, kSkipSeed) % (table_size - 1) + 1};
}

std::vector<std::uint32_t> maglev_populate(const std::vector<MaglevPermutation>& backends,
                                           std::uint64_t table_size) {
  if (backends.empty() || backends.size() > table_size)
    throw std::invalid_argument("maglev_populate: need 1 <= backends <= table size");
  std::vector<std::uint32_t> entry(table_size, kEmpty);
  std::vector<std::uint64_t> next(backends.size(), 0);
  std::uint64_t filled = 0;
  for (;;) {
    for (std::uint32_t i = 0; i < backends.size(); ++i) {
      const MaglevPermutation& p = backends[i];
      // permutation[i][j] = (offset + j * skip) mod M; j < M always finds a free slot
      // because the permutation visits every slot exactly once.
      std::uint64_t c = (p.offset + next[i] * p.skip) % table_size;
      while (entry[c] != kEmpty) {
        ++next[i];
        c = (p.offset + next[i] * p.skip) % table_size;
      }
      entry[c] = i;
      ++next[i];
      if (++filled == table_size) return entry;
    }
  }
}

bool is_prime(std::uint64_t n) {
  if (n < 2) return false;
  for (std::uint64_t d = 2; d * d <= n; ++d)
    if (n % d == 0) return false;
  return true;
}

}  // namespace hrw::compare
