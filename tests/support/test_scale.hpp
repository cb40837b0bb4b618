// One knob for the sizes of the heavy tests: HRW_TEST_SCALE (> 0) multiplies them, so the
// same suite fits the sanitizer and emulated-ARM runs of tools/test-all.sh.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdlib>

namespace hrw::test {

// What tests that opt in use when HRW_TEST_SCALE is unset: qemu runs ~20x slower.
#if defined(__aarch64__)
inline constexpr double kEmulatedScale = 0.1;
#else
inline constexpr double kEmulatedScale = 1.0;
#endif

// HRW_TEST_SCALE when set to a positive number, `fallback` otherwise.
inline double test_scale(double fallback = 1.0) {
  const char* s = std::getenv("HRW_TEST_SCALE");
  const double v = s ? std::atof(s) : 0.0;
  return v > 0 ? v : fallback;
}

inline std::size_t scaled(std::size_t n, double fallback = 1.0) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(static_cast<double>(n) * test_scale(fallback)));
}

}  // namespace hrw::test
