// Progress of a long bulk job, reported through a callback: the library only counts, the
// caller decides whether and how to show it (the CLI redraws a line on a terminal).
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

namespace hrw {

struct ProgressReport {
  ProgressReport(std::uint64_t keys_done = 0, std::uint64_t consumed = 0,
                 std::optional<std::uint64_t> total = std::nullopt, std::string what = {})
      : keys(keys_done), bytes_consumed(consumed), total_bytes(total), phase(std::move(what)) {}
  std::uint64_t keys = 0;                  // keys done
  std::uint64_t bytes_consumed = 0;        // input bytes consumed
  std::optional<std::uint64_t> total_bytes;  // input size when known (regular files)
  // A job of several passes over the keys (a staged plan): what it is doing, e.g.
  // "step 2 of 4"; keys then count every pass, and total_bytes is not given.
  std::string phase;
};

// Called in input order, once per chunk, on the consuming thread: keep it cheap.
using ProgressCallback = std::function<void(const ProgressReport&)>;

// The text of one progress line: keys done, keys/s and, when the fraction is known, the
// percent and an ETA. Short enough for any terminal.
std::string progress_text(std::uint64_t keys, double seconds, std::optional<double> fraction_done,
                          const std::string& phase = "");

}  // namespace hrw
