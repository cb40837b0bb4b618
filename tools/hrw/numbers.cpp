#include "hrw/numbers.hpp"

#include <charconv>
#include <cmath>

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

double parse_real(std::string_view option, std::string_view text, RealRange range) {
  // DIGITS[.DIGITS][(e|E)[-]DIGITS]: what from_chars accepts minus its sign, nan, inf and
  // hex forms, which are refused before it sees them.
  auto digits = [&](std::size_t& at) {
    const std::size_t start = at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
    return at > start;
  };
  std::size_t at = 0;
  bool ok = digits(at);
  if (ok && at < text.size() && text[at] == '.') ok = digits(++at);
  if (ok && at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
    ++at;
    if (at < text.size() && text[at] == '-') ++at;
    ok = digits(at);
  }
  double value = 0;
  if (ok && at == text.size()) {
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    ok = ec == std::errc() && ptr == text.data() + text.size() && std::isfinite(value);
  } else {
    ok = false;
  }
  if (ok) ok = (range.min_open ? value > range.min : value >= range.min) && value <= range.max;
  if (!ok)
    throw CLI::ValidationError(
        std::string(option), fmt::format("must be a number in {}{}, {}], got {}", range.min_open ? "(" : "[",
                                         range.min, range.max, quote_for_message(text)));
  return value;
}

}  // namespace hrw::cli
