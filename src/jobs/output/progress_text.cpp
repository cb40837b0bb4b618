#include <fmt/format.h>

#include "hrw/progress.hpp"

namespace hrw {

namespace {

// 1234567 -> "1.23M": the line must stay short enough for any terminal.
std::string human(double n) {
  if (n >= 1e9) return fmt::format("{:.2f}G", n / 1e9);
  if (n >= 1e6) return fmt::format("{:.2f}M", n / 1e6);
  if (n >= 1e3) return fmt::format("{:.1f}k", n / 1e3);
  return fmt::format("{:.0f}", n);
}

std::string duration(double seconds) {
  const long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}h{:02}m", s / 3600, (s / 60) % 60);
  if (s >= 60) return fmt::format("{}m{:02}s", s / 60, s % 60);
  return fmt::format("{}s", s);
}

}  // namespace

std::string progress_text(std::uint64_t keys, double seconds, std::optional<double> fraction_done,
                          const std::string& phase) {
  const double rate = seconds > 0 ? static_cast<double>(keys) / seconds : 0.0;
  std::string line = phase.empty() ? "" : phase + "  ";
  line += fmt::format("{} keys  {} keys/s", human(static_cast<double>(keys)), human(rate));
  if (fraction_done && *fraction_done > 0) {
    const double eta = seconds * (1.0 - *fraction_done) / *fraction_done;
    line += fmt::format("  {:.0f}%  ETA {}", *fraction_done * 100.0, duration(eta));
  }
  return line;
}

}  // namespace hrw
