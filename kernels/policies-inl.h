// The two rank rules of the contract (§3) as kernel policies: unweighted (r as unsigned)
// and weighted (ln(u)/w in binary64, with the gate that skips most logarithms).
#if defined(HRW_KERNELS_POLICIES_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_POLICIES_INL_H_
#undef HRW_KERNELS_POLICIES_INL_H_
#else
#define HRW_KERNELS_POLICIES_INL_H_
#endif

#include "hwy/highway.h"

#include "hrw/det_math.hpp"
#include "det_ln-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// A policy turns the FNV-1a state vector of a leaf into a score vector in two steps:
// Pre (cheap) and Key (the rank key). CannotBeat(pre, best) may prove, for all lanes at
// once, that the key will not be strictly greater than `best`, so that Key is skipped.
//
// Unweighted: hash lanes are u32 (full vector), scores are int32 with the sign bit flipped
// so that signed order = unsigned order of r; node indices are int32 too.
struct Unweighted {
  using DU = hn::ScalableTag<uint32_t>;
  using DS = hn::ScalableTag<int32_t>;
  using TS = int32_t;
  static constexpr bool kWeighted = false;
  bool fmix;
  HWY_INLINE hn::Vec<DS> Pre(DU du, DS ds, hn::Vec<DU> h) const {
    if (HWY_UNLIKELY(!fmix)) return hn::BitCast(ds, hn::Xor(h, hn::Set(du, 0x80000000u)));
    // Fmix32 with its last xor-shift fused with the sign flip.
    h = hn::Xor(h, hn::ShiftRight<16>(h));
    h = hn::Mul(h, hn::Set(du, 0x85EBCA6Bu));
    h = hn::Xor(h, hn::ShiftRight<13>(h));
    h = hn::Mul(h, hn::Set(du, 0xC2B2AE35u));
    return hn::BitCast(ds, hn::Xor3(h, hn::ShiftRight<16>(h), hn::Set(du, 0x80000000u)));
  }
  HWY_INLINE hn::Vec<DS> Key(DS, hn::Vec<DS> pre, double) const { return pre; }
  HWY_INLINE bool CannotBeat(DS, hn::Vec<DS>, hn::Vec<DS>, double) const { return false; }
  static HWY_INLINE double Rank(TS s) {
    return static_cast<double>(static_cast<uint32_t>(s) ^ 0x80000000u);
  }
};

// Weighted: hash lanes are u32 in a half-width vector with as many lanes as the f64
// vector; scores are the binary64 rank keys ln(u)/w; node indices are held as doubles
// (exact) so that one mask type selects both.
struct Weighted {
  using DS = hn::ScalableTag<double>;
  using DU = hn::Rebind<uint32_t, DS>;
  using TS = double;
  static constexpr bool kWeighted = true;
  bool fmix;
  // u = det::unit_from_hash(r): bits 2^52 | (r + 1), minus 2^52, times 2^-32 (all exact).
  HWY_INLINE hn::Vec<DS> Pre(DU du, DS d, hn::Vec<DU> h) const {
    if (HWY_LIKELY(fmix)) h = Fmix32(du, h);  // the default hash mode
    const hn::RebindToUnsigned<DS> du64;
    const auto bits =
        hn::Or(hn::Set(du64, det::kTwo52Bits), hn::Add(hn::PromoteTo(du64, h), hn::Set(du64, 1)));
    return hn::Mul(hn::Sub(hn::BitCast(d, bits), hn::Set(d, det::kTwo52)), hn::Set(d, 0x1p-32));
  }
  // det::weighted_key(r, w) = det::ln(u) / w.
  HWY_INLINE hn::Vec<DS> Key(DS d, hn::Vec<DS> u, double w) const {
    const auto l = DetLn(d, u);
    return w == 1.0 ? l : hn::Div(l, hn::Set(d, w));  // x / 1.0 == x exactly
  }
  // The gate that makes the weighted path cheap: most candidates cannot beat the best so
  // far, and proving it needs no logarithm. With x = u - 1 (exact: u has at most 32
  // significant bits), ln(u) <= x - x^2/2 for u in (0, 1], and det::ln's relative error
  // (< 2^-50) is far below x^2/2 for |x| >= 2^-32 (and det::ln(1) = 0), so det::ln(u) <= x.
  // Q = fl(fl(B*w) * (1 + 2^-50)) <= B*w in real arithmetic whenever B*w is normal, so
  // x < Q implies det::ln(u) < B*w, i.e. det::ln(u)/w < B, and the correctly rounded
  // quotient is then <= B (rounding is monotone): it cannot be strictly greater. If B*w
  // underflows, Q >= -2^-1021 and x < Q needs x <= -2^-32 < B*w anyway; if it overflows
  // to -inf, x < Q is false. Strict x < Q keeps u = 1 (key 0) from ever being skipped.
  HWY_INLINE hn::Mask<DS> Beaten(DS d, hn::Vec<DS> u, hn::Vec<DS> best, double w) const {
    const auto x = hn::Sub(u, hn::Set(d, 1.0));
    const auto q = hn::Mul(hn::Mul(best, hn::Set(d, w)),
                           hn::Set(d, 1.0 + 0x1p-50));
    return hn::Lt(x, q);
  }
  HWY_INLINE bool CannotBeat(DS d, hn::Vec<DS> u, hn::Vec<DS> best, double w) const {
    return hn::AllTrue(d, Beaten(d, u, best, w));
  }
  // In every lane: CannotBeat, or the pair fails its node's cut (u < bound, contract §9).
  HWY_INLINE bool CannotBeatOrFails(DS d, hn::Vec<DS> u, hn::Vec<DS> best, double w,
                                    hn::Vec<DS> bound) const {
    return hn::AllTrue(d, hn::Or(Beaten(d, u, best, w), hn::Lt(u, bound)));
  }
  // gate_floor (kernel_api.hpp) op for op: the int32 floors for the lanes' bests and a
  // class of weights <= w.
  HWY_INLINE hn::Vec<hn::Rebind<int32_t, DS>> GateFloor(DS d, hn::Vec<DS> best, double w) const {
    const auto q = hn::Mul(hn::Mul(best, hn::Set(d, w)), hn::Set(d, 1.0 + 0x1p-50));
    const auto t = hn::Add(hn::Ceil(hn::Mul(q, hn::Set(d, 0x1p32))), hn::Set(d, 2147483647.0));
    return hn::DemoteTo(hn::Rebind<int32_t, DS>(), hn::Max(t, hn::Set(d, -2147483648.0)));
  }
  static HWY_INLINE double Rank(TS s) { return s; }
};

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
