// A progress line for long bulk runs: keys done, keys/s and, when the input size is known,
// an ETA from the bytes consumed. Drawn on stderr only when stderr is a terminal, so logs
// and pipelines stay clean; at most a few redraws per second.
#pragma once
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace hrw {

class Progress {
 public:
  // enabled: usually stderr_is_tty(). total_bytes: input size when known.
  Progress(bool enabled, std::optional<std::uint64_t> total_bytes);
  ~Progress();

  void update(std::uint64_t keys, std::uint64_t bytes_consumed);
  // Erases the line, so that what follows on stderr starts clean.
  void finish();

  static bool stderr_is_tty();
  // The text of one progress line, exposed for tests.
  static std::string format_line(std::uint64_t keys, double seconds,
                                 std::optional<double> fraction_done);

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  bool drawn_ = false;
  std::optional<std::uint64_t> total_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace hrw
