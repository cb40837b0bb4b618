#include "hrw/progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

namespace hrw::cli {

ProgressLine::~ProgressLine() { finish(); }

ProgressCallback ProgressLine::callback() {
  if (::isatty(STDERR_FILENO) != 1) return {};
  return [this](const ProgressReport& r) { update(r); };
}

void ProgressLine::update(const ProgressReport& r) {
  const auto now = Clock::now();
  if (now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const double seconds = std::chrono::duration<double>(now - start_).count();
  std::optional<double> fraction;
  if (r.total_bytes && *r.total_bytes > 0)
    fraction = std::min(1.0, static_cast<double>(r.bytes_consumed) / static_cast<double>(*r.total_bytes));
  // \r and clear-to-end-of-line: redraw in place.
  // fputs, not fmt::print: an unwritable stderr must not throw out of a destructor.
  std::fputs(fmt::format("\r{}\x1b[K", progress_text(r.keys, seconds, fraction, r.phase)).c_str(), stderr);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::finish() {
  if (!drawn_) return;
  std::fputs("\r\x1b[K", stderr);
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace hrw::cli
