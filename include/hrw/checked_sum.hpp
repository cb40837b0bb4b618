// The one way hrw adds numbers that come from its input (key counts, bytes, requests):
// exactly, or refused as an input error that names what overflowed — never a wrap. Every
// total a report prints (read, moved, stayed, per node, per round, merged parts) is such a
// sum or a part of one (docs/errors.md, "Sums").
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "hrw/errors.hpp"

namespace hrw {

// The largest sum hrw holds, as messages name it.
inline constexpr std::string_view kSumLimitText = "2^64 - 1";

// total + value when it fits in 64 bits, else nullopt.
[[nodiscard]] constexpr std::optional<std::uint64_t> exact_sum(std::uint64_t total, std::uint64_t value) {
  std::uint64_t sum = 0;
  if (__builtin_add_overflow(total, value, &sum)) return std::nullopt;
  return sum;
}

// InputError "the WHAT total exceeds 2^64 - 1", after "WHERE: " when `where` is not empty
// (a file and line, a plan part).
InputError sum_overflow(std::string_view what, std::string_view where = {});

// total += value, or throws sum_overflow(what) and leaves total unchanged.
inline void add_checked(std::uint64_t& total, std::uint64_t value, std::string_view what) {
  const auto sum = exact_sum(total, value);
  if (!sum) [[unlikely]]
    throw sum_overflow(what);
  total = *sum;
}

}  // namespace hrw
