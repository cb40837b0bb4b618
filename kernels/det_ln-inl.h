// Per-target scalar-free math of the contract: fmix32 (§2) and det::ln (§4), in vectors.
// det::ln repeats src/core/det_math.cpp op for op with IEEE binary64 Mul/Add/Sub/Div, exact bit
// manipulation and IfThenElse; never MulAdd, and the project builds with -ffp-contract=off
// so the compiler fuses nothing either: every target gives the scalar reference's bits.
// Include from a Highway translation unit (HWY_TARGET_INCLUDE / foreach_target.h).
#if defined(HRW_KERNELS_DET_LN_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_DET_LN_INL_H_
#undef HRW_KERNELS_DET_LN_INL_H_
#else
#define HRW_KERNELS_DET_LN_INL_H_
#endif

#include "hwy/highway.h"

#include "hrw/det_math.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

template <class DU>
HWY_INLINE hn::Vec<DU> Fmix32(DU du, hn::Vec<DU> h) {
  h = hn::Xor(h, hn::ShiftRight<16>(h));
  h = hn::Mul(h, hn::Set(du, 0x85EBCA6Bu));
  h = hn::Xor(h, hn::ShiftRight<13>(h));
  h = hn::Mul(h, hn::Set(du, 0xC2B2AE35u));
  h = hn::Xor(h, hn::ShiftRight<16>(h));
  return h;
}

// det::ln, op for op (see src/core/det_math.cpp).
template <class D>
HWY_INLINE hn::Vec<D> DetLn(D d, hn::Vec<D> x) {
  const hn::RebindToUnsigned<D> du;
  const auto bits = hn::BitCast(du, x);
  const auto biased = hn::ShiftRight<52>(bits);
  auto e = hn::Sub(hn::Sub(hn::BitCast(d, hn::Or(hn::Set(du, det::kTwo52Bits), biased)),
                           hn::Set(d, det::kTwo52)),
                   hn::Set(d, 1023.0));
  auto m = hn::BitCast(d, hn::Or(hn::And(bits, hn::Set(du, 0x000FFFFFFFFFFFFFull)),
                                 hn::Set(du, 0x3FF0000000000000ull)));
  const auto big = hn::Gt(m, hn::Set(d, det::kSqrt2));
  m = hn::IfThenElse(big, hn::Mul(m, hn::Set(d, 0.5)), m);
  e = hn::IfThenElse(big, hn::Add(e, hn::Set(d, 1.0)), e);
  const auto f = hn::Sub(m, hn::Set(d, 1.0));
  const auto s = hn::Div(f, hn::Add(hn::Set(d, 2.0), f));
  const auto z = hn::Mul(s, s);
  auto poly = hn::Set(d, det::kLnPoly[0]);
  for (int k = 1; k < det::kLnTerms; ++k)
    poly = hn::Add(hn::Mul(poly, z), hn::Set(d, det::kLnPoly[k]));
  const auto ln_m = hn::Mul(hn::Mul(hn::Set(d, 2.0), s), poly);
  return hn::Add(hn::Mul(e, hn::Set(d, det::kLn2Hi)),
                 hn::Add(ln_m, hn::Mul(e, hn::Set(d, det::kLn2Lo))));
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
