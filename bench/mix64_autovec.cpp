// SCALAR_MIX64_AUTOVEC: the SCALAR_MIX64 source with the project's normal flags (-O3, no
// -march), so readers see whether GCC's auto-vectoriser changes the baseline.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mix64.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HRW_MIX64_NS autovec
#define HRW_MIX64_NAME mix64_place_autovec
#define HRW_MIX64_ATTR
#include "mix64_impl.hpp"
