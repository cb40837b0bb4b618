#include "hrw/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

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

Progress::Progress(bool enabled, std::optional<std::uint64_t> total_bytes)
    : enabled_(enabled), total_(total_bytes) {
  if (total_ && *total_ == 0) total_.reset();
}

Progress::~Progress() { finish(); }

bool Progress::stderr_is_tty() { return ::isatty(STDERR_FILENO) == 1; }

std::string Progress::format_line(std::uint64_t keys, double seconds,
                                  std::optional<double> fraction_done) {
  const double rate = seconds > 0 ? static_cast<double>(keys) / seconds : 0.0;
  std::string line = fmt::format("{} keys  {} keys/s", human(static_cast<double>(keys)), human(rate));
  if (fraction_done && *fraction_done > 0) {
    const double eta = seconds * (1.0 - *fraction_done) / *fraction_done;
    line += fmt::format("  {:.0f}%  ETA {}", *fraction_done * 100.0, duration(eta));
  }
  return line;
}

void Progress::update(std::uint64_t keys, std::uint64_t bytes_consumed) {
  if (!enabled_) return;
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::optional<double> fraction;
  if (total_) fraction = std::min(1.0, static_cast<double>(bytes_consumed) / static_cast<double>(*total_));
  // \r and clear-to-end-of-line: redraw in place.
  // fputs, not fmt::print: an unwritable stderr must not throw out of a destructor.
  std::fputs(fmt::format("\r{}\x1b[K", format_line(keys, seconds, fraction)).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void Progress::finish() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace hrw
