// Deterministic binary64 math for the weighted ranking (contract §4).
//
// libm's log/exp differ in the last bit between platforms and SIMD targets, and one bit
// can flip an owner. These functions use only IEEE-754 +, -, *, / in a fixed order and
// exact bit manipulation, so the Highway kernel (kernels/) repeats them op for op and
// gets the same bits on every target. Build with -ffp-contract=off: a fused multiply-add
// would round differently. The measured error is in docs/placement-contract.md.
#pragma once
#include <cstdint>

namespace hrw::det {

// ln(2) split so that e * kLn2Hi is exact for the small exponents we meet (fdlibm's split).
inline constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
inline constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
inline constexpr double kSqrt2 = 1.41421356237309504880;
inline constexpr double kTwo52 = 4503599627370496.0;          // 2^52
inline constexpr std::uint64_t kTwo52Bits = 0x4330000000000000ull;

// ln(m) = 2 atanh(s), s = (m-1)/(m+1) = 2s (1 + s^2/3 + s^4/5 + ...). For m in
// [sqrt(1/2), sqrt(2)], s^2 <= 0.0295, so 12 terms leave a truncation error < 2^-60.
// Coefficients are 1/(2k+1), highest power first (Horner order).
inline constexpr int kLnTerms = 12;
inline constexpr double kLnPoly[kLnTerms] = {
    1.0 / 23, 1.0 / 21, 1.0 / 19, 1.0 / 17, 1.0 / 15, 1.0 / 13,
    1.0 / 11, 1.0 / 9,  1.0 / 7,  1.0 / 5,  1.0 / 3,  1.0};

// u = (r + 1) / 2^32, exact: r + 1 <= 2^32 fits the 52-bit mantissa, and the scaling by a
// power of two is exact. Built from bits so that SIMD code needs no u32->f64 conversion.
double unit_from_hash(std::uint32_t r);

// Natural log of a positive normal double (we only call it on u in [2^-32, 1]).
double ln(double x);

// e^x for the reported weighted score u^(1/w) = exp(ln(u) / w); x <= 0 here, so the
// result is in [0, 1]. Scalar only: the ranking never needs it.
double exp(double x);

// The weighted ranking key: ln(u) / w. Higher ranks first (it is <= 0).
double weighted_key(std::uint32_t r, double weight);

}  // namespace hrw::det
