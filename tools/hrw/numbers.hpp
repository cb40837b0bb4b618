// Every numeric option of every command is parsed here, strictly: decimal digits only (no
// sign, no spaces, no hex), or the exact form NeK (2e7 = 20000000) that the help texts use;
// each option has a documented range (docs/errors.md), checked while parsing the command
// line, so a bad value is exit 2 naming the option before anything is read.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>
#include <tbb/global_control.h>
#include <optional>

namespace hrw::cli {

// Throws CLI::ValidationError "OPTION: ..." unless `text` is an integer in [min, max].
std::uint64_t parse_unsigned(std::string_view option, std::string_view text, std::uint64_t min,
                             std::uint64_t max);

// An unsigned option stored in `value`; `help` gets "; MIN to MAX" appended.
template <typename T>
CLI::Option* add_unsigned(CLI::App& sub, const std::string& name, T& value, std::uint64_t min,
                          std::uint64_t max, const std::string& help) {
  return sub
      .add_option_function<std::string>(
          name,
          [&value, name, min, max](const std::string& text) {
            value = static_cast<T>(parse_unsigned(name, text, min, max));
          },
          help + "; " + std::to_string(min) + " to " + std::to_string(max))
      ->type_name("UINT");
}

// The thread counts every command accepts (0: all cores).
inline constexpr std::uint64_t kMaxThreads = 256;

// For the run's lifetime, lets oneTBB start `threads` workers even beyond the core count
// (it would otherwise cap them and print its own warning). 0: nothing to do.
class ThreadLimit {
 public:
  explicit ThreadLimit(unsigned threads);

 private:
  std::optional<tbb::global_control> control_;
};

}  // namespace hrw::cli
