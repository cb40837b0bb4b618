// The one home of every numeric setting's bound (docs/errors.md, "Options: ranges"). The CLI's
// parser refuses an out-of-range flag with it before anything is read, and each command's
// front door (plan_settings.hpp) checks the same bound for callers that parse nothing
// (Python, Dask), so a bound cannot differ between them.
#pragma once
#include <cstdint>
#include <string_view>

#include "hrw/errors.hpp"

namespace hrw {

struct IntegerRange {
  std::uint64_t min = 0, max = 0;
};
// Closed [min, max], or (min, max] when min_open.
struct RealRange {
  double min = 0, max = 0;
  bool min_open = false;
};

IntegerRange integer_range(Setting setting);  // logic_error for a setting that is not an integer
RealRange real_range(Setting setting);        // logic_error for a setting that is not a real

// `value`, or InputError naming `setting`: ": must be an integer from MIN to MAX, got VALUE".
std::uint64_t checked_integer(Setting setting, std::uint64_t value);
// The same refusal for a value as a front end was given it (a negative or huge Python int).
[[noreturn]] void refuse_integer(Setting setting, std::string_view given);
// `value`, or InputError naming `setting`: ": must be a number in (MIN, MAX], got VALUE".
double checked_real(Setting setting, double value);

}  // namespace hrw
