#include "hrw/numbers.hpp"

#include <charconv>
#include <thread>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::cli {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos;
}

std::optional<std::uint64_t> to_u64(std::string_view s) {
  std::uint64_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// "123" or "2e7"; nullopt when not of that form or beyond 2^64 - 1.
std::optional<std::uint64_t> parse(std::string_view text) {
  const auto e = text.find_first_of("eE");
  const std::string_view mantissa = text.substr(0, e);
  if (!all_digits(mantissa)) return std::nullopt;
  auto value = to_u64(mantissa);
  if (!value || e == std::string_view::npos) return value;
  const std::string_view exponent = text.substr(e + 1);
  if (!all_digits(exponent) || exponent.size() > 2) return std::nullopt;
  for (auto k = *to_u64(exponent); k > 0 && *value != 0; --k) {
    if (*value > UINT64_MAX / 10) return std::nullopt;
    *value *= 10;
  }
  return value;
}

}  // namespace

std::uint64_t parse_unsigned(std::string_view option, std::string_view text, std::uint64_t min,
                             std::uint64_t max) {
  const auto value = parse(text);
  if (!value || *value < min || *value > max)
    throw CLI::ValidationError(std::string(option),
                               fmt::format("must be an integer from {} to {}, got {}", min, max,
                                           quote_for_message(text)));
  return *value;
}

ThreadLimit::ThreadLimit(unsigned threads) {
  if (threads > std::thread::hardware_concurrency())
    control_.emplace(tbb::global_control::max_allowed_parallelism, threads);
}

}  // namespace hrw::cli
