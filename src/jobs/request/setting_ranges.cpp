#include "request/setting_ranges.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace hrw {

namespace {

// Far beyond any real batch, and small enough that counting batches cannot overflow.
constexpr std::uint64_t kMaxBatchSize = 1'000'000'000'000;
// One exabyte per second: no link is faster, and times stay finite.
constexpr std::uint64_t kMaxBandwidth = 1'000'000'000'000'000;
// Thread counts every command accepts (0: all cores).
constexpr std::uint64_t kMaxThreads = 256;

}  // namespace

IntegerRange integer_range(Setting setting) {
  switch (setting) {
    case Setting::replica_count: return {1, std::numeric_limits<std::uint32_t>::max()};
    case Setting::batch_size: return {1, kMaxBatchSize};
    case Setting::max_moves_per_node: return {1, std::numeric_limits<std::uint64_t>::max()};
    case Setting::max_bytes_per_node: return {1, std::numeric_limits<std::uint64_t>::max()};
    case Setting::node_bandwidth: return {1, kMaxBandwidth};
    case Setting::thread_count: return {0, kMaxThreads};
    case Setting::step_versions: return {0, static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())};
    default: break;
  }
  throw std::logic_error(fmt::format("{} is not an integer setting", setting_name(setting)));
}

RealRange real_range(Setting setting) {
  if (setting == Setting::max_moved_fraction) return {0, 1, true};
  throw std::logic_error(fmt::format("{} is not a real setting", setting_name(setting)));
}

void refuse_integer(Setting setting, std::string_view given) {
  const IntegerRange r = integer_range(setting);
  throw InputError(setting, fmt::format(": must be an integer from {} to {}, got {}", r.min, r.max, given));
}

std::uint64_t checked_integer(Setting setting, std::uint64_t value) {
  const IntegerRange r = integer_range(setting);
  if (value < r.min || value > r.max) refuse_integer(setting, std::to_string(value));
  return value;
}

double checked_real(Setting setting, double value) {
  const RealRange r = real_range(setting);
  const bool above_min = r.min_open ? value > r.min : value >= r.min;
  if (!std::isfinite(value) || !above_min || value > r.max)
    throw InputError(setting, fmt::format(": must be a number in {}{}, {}], got {}", r.min_open ? "(" : "[", r.min,
                                          r.max, value));
  return value;
}

}  // namespace hrw
