// The CLI's progress line for long bulk runs, drawn on stderr only when stderr is a
// terminal (logs and pipelines stay clean), at most a few redraws per second. The library
// reports progress through hrw::ProgressCallback; this turns the reports into the line.
#pragma once
#include <chrono>

#include "hrw/progress.hpp"

namespace hrw::cli {

class ProgressLine {
 public:
  ProgressLine() = default;
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // A callback drawing on this line when stderr is a terminal; empty otherwise.
  ProgressCallback callback();
  // Erases the line, so that what follows on stderr starts clean.
  void finish();

 private:
  void update(const ProgressReport& report);
  using Clock = std::chrono::steady_clock;
  bool drawn_ = false;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_ = start_;
};

}  // namespace hrw::cli
