// Deterministic ln/exp (contract §4). The kernels in kernels/ repeat ln() op for op; if you
// change an operation or its order here, change it there too — `hrw verify` will tell.
#include "hrw/det_math.hpp"

#include <bit>
#include <cmath>
#include <span>

namespace hrw::det {

double unit_from_hash(std::uint32_t r) {
  // 2^52 + (r + 1) from bits, minus 2^52: exact, and the same trick works in SIMD lanes.
  const std::uint64_t bits = kTwo52Bits | (static_cast<std::uint64_t>(r) + 1);
  const double integer = std::bit_cast<double>(bits) - kTwo52;
  return integer * 0x1p-32;
}

double ln(double x) {
  const std::uint64_t bits = std::bit_cast<std::uint64_t>(x);
  // Biased exponent as a double, built from bits like unit_from_hash (exact).
  const std::uint64_t biased = bits >> 52;
  double e = (std::bit_cast<double>(kTwo52Bits | biased) - kTwo52) - 1023.0;
  double m = std::bit_cast<double>((bits & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > kSqrt2) {  // centre m on 1 so |s| stays small: m in [sqrt(1/2), sqrt(2)]
    m = m * 0.5;
    e = e + 1.0;
  }
  const double f = m - 1.0;  // exact (Sterbenz)
  const double s = f / (2.0 + f);
  const double z = s * s;
  double poly = kLnPoly[0];
  for (int k = 1; k < kLnTerms; ++k) poly = poly * z + kLnPoly[k];
  const double ln_m = (2.0 * s) * poly;
  return e * kLn2Hi + (ln_m + e * kLn2Lo);
}

double exp(double x) {
  if (x < -746.0) return 0.0;  // below the smallest subnormal
  // x = k ln2 + t, |t| <= ln2/2; e^t by its Taylor series, then scaled by 2^k (exact).
  const double k = std::floor(x * 1.44269504088896340736 + 0.5);
  const double t = (x - k * kLn2Hi) - k * kLn2Lo;
  // 1/n! for n = 14 down to 1; |t|^15/15! < 2^-60 for |t| <= 0.35.
  static constexpr double kInvFactorial[] = {
      1.0 / 87178291200.0, 1.0 / 6227020800.0, 1.0 / 479001600.0, 1.0 / 39916800.0,
      1.0 / 3628800.0,     1.0 / 362880.0,     1.0 / 40320.0,     1.0 / 5040.0,
      1.0 / 720.0,         1.0 / 120.0,        1.0 / 24.0,        1.0 / 6.0,
      1.0 / 2.0,           1.0};
  double p = kInvFactorial[0];
  for (double c : std::span<const double>(kInvFactorial).subspan(1)) p = p * t + c;
  p = p * t + 1.0;
  return std::ldexp(p, static_cast<int>(k));
}

double weighted_key(std::uint32_t r, double weight) { return ln(unit_from_hash(r)) / weight; }

}  // namespace hrw::det
