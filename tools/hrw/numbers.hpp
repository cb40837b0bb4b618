// Every numeric option of every command is parsed here, strictly (docs/errors.md, "Options:
// ranges"): an unsigned option takes decimal digits only (no sign, no spaces, no hex), or
// the exact form NeK (2e7 = 20000000) that the help texts use; a real option takes
// DIGITS[.DIGITS][e[-]DIGITS] (no sign, no spaces, no hex, no nan/inf). Each option has a
// documented range, checked while parsing the command line, so a bad value is exit 2
// naming the option before anything is read. Options declared here carry the type name
// UINT or REAL, which `hrw --list-options` shows (the CLI tests walk them all).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

#include "request/setting_ranges.hpp"

namespace hrw::cli {

inline constexpr const char* kUnsignedType = "UINT";
inline constexpr const char* kRealType = "REAL";

// Throws CLI::ValidationError "OPTION: ..." unless `text` is an integer in [min, max].
std::uint64_t parse_unsigned(std::string_view option, std::string_view text, std::uint64_t min,
                             std::uint64_t max);

// Throws CLI::ValidationError "OPTION: ..." unless `text` is a finite number in `range`.
double parse_real(std::string_view option, std::string_view text, RealRange range);

namespace detail {
template <typename T>
void store(T& to, std::uint64_t v) { to = static_cast<T>(v); }
template <typename T>
void store(std::optional<T>& to, std::uint64_t v) { to = static_cast<T>(v); }
inline void store_real(double& to, double v) { to = v; }
inline void store_real(std::optional<double>& to, double v) { to = v; }
}  // namespace detail

// An unsigned option stored in `value` (a T or a std::optional<T>, set only when given);
// `help` gets "; MIN to MAX" appended.
template <typename T>
CLI::Option* add_unsigned(CLI::App& sub, const std::string& name, T& value, std::uint64_t min,
                          std::uint64_t max, const std::string& help) {
  return sub
      .add_option_function<std::string>(
          name,
          [&value, name, min, max](const std::string& text) {
            detail::store(value, parse_unsigned(name, text, min, max));
          },
          help + "; " + std::to_string(min) + " to " + std::to_string(max))
      ->type_name(kUnsignedType);
}

// A real option stored in `value` (double or std::optional<double>); `help` names the range.
template <typename T>
CLI::Option* add_real(CLI::App& sub, const std::string& name, T& value, RealRange range,
                      const std::string& help) {
  return sub
      .add_option_function<std::string>(
          name,
          [&value, name, range](const std::string& text) {
            detail::store_real(value, parse_real(name, text, range));
          },
          help)
      ->type_name(kRealType);
}

// The same for an option that sets a library or front-door setting: its range is the
// setting's own (request/setting_ranges.hpp), the one that Python is held to as well.
template <typename T>
CLI::Option* add_unsigned(CLI::App& sub, const std::string& name, T& value, Setting setting, const std::string& help) {
  const IntegerRange r = integer_range(setting);
  return add_unsigned(sub, name, value, r.min, r.max, help);
}
template <typename T>
CLI::Option* add_real(CLI::App& sub, const std::string& name, T& value, Setting setting, const std::string& help) {
  return add_real(sub, name, value, real_range(setting), help);
}

}  // namespace hrw::cli
