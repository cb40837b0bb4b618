// This machine's op-mix bounds (src/jobs/bench/op_bounds.hpp, docs/bench.md): chain-free
// loops of lane multiplies and of the op mix of one unweighted fnv1a-fmix pair, on
// independent accumulators, nothing else. One Highway source for every target; the caller
// names the target (the bounds are stated for the widest vectors of the CPU, whatever the
// kernels are forced to), so the export table is indexed by that target, not dispatched.
//
// SVE targets are not compiled here: the chains are arrays of vectors, which sizeless SVE
// vector types cannot be, and the bounds are stated for NEON on aarch64.
#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SVE | HWY_SVE2 | HWY_SVE_256 | HWY_SVE2_128)
#endif
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "op_probe.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "dispatch.hpp"
#include "op_probe.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Keeps an accumulator live and opaque once per call: the compiler can neither drop the
// loop nor fold kOpProbeInner steps of a chain into fewer (a power of the prime).
// Vector targets go through a plain local: clang cannot tie a register operand to an array
// element that ASan keeps in memory. SCALAR and EMU128 (built by clang) hold arrays or plain
// values, kept opaque through memory instead; a store per call is nothing beside the
// kOpProbeInner steps.
template <class V>
HWY_INLINE void KeepOpaque(V& v) {
#if HWY_TARGET == HWY_SCALAR || HWY_TARGET == HWY_EMU128
  asm volatile("" : : "r"(&v) : "memory");
#else
  auto raw = v.raw;
#if HWY_ARCH_X86
  asm volatile("" : "+v"(raw));
#elif HWY_ARCH_ARM_A64
  asm volatile("" : "+w"(raw));
#else
#error "op_probe: no register barrier for this architecture"
#endif
  v.raw = raw;
#endif
}

// The lanes' sum mod 2^32, in scalar unsigned arithmetic: Highway's SumOfLanes on AVX-512
// lowers to _mm512_reduce_add_epi32, whose signed int additions overflow (UB, UBSan flags it).
template <class D>
HWY_INLINE uint32_t LaneSum(D d, hn::Vec<D> v) {
  HWY_ALIGN uint32_t lanes[hn::MaxLanes(d)];
  hn::Store(v, d, lanes);
  uint32_t sum = 0;
  for (size_t i = 0; i < hn::Lanes(d); ++i) sum += lanes[i];
  return sum;
}

constexpr uint32_t kPrime = 0x01000193u;
constexpr uint32_t kFmix1 = 0x85EBCA6Bu;
constexpr uint32_t kFmix2 = 0xC2B2AE35u;

template <int Chains>
HWY_NOINLINE uint32_t MulProbe(int64_t calls, uint32_t seed) {
  const hn::ScalableTag<uint32_t> du;
  using V = hn::Vec<decltype(du)>;
  V acc[Chains];
  for (int c = 0; c < Chains; ++c) acc[c] = hn::Add(hn::Set(du, seed + c), hn::Iota(du, 0));
  const V prime = hn::Set(du, kPrime);
  for (int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kOpProbeInner; ++i) {
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) acc[c] = hn::Mul(acc[c], prime);
    }
    for (int c = 0; c < Chains; ++c) KeepOpaque(acc[c]);
  }
  V sum = acc[0];
  for (int c = 1; c < Chains; ++c) sum = hn::Xor(sum, acc[c]);
  return LaneSum(du, sum);
}

// The unweighted policy's op mix (kernels/policies-inl.h, runner-inl.h): h is the FNV-1a
// state (u32), the score is fmix32(h) with its last xor-shift fused with the sign flip, as
// int32, so the signed Gt is the unsigned order of r; the best score and its node index
// are kept by two IfThenElse (masked moves on AVX-512, blends on AVX2, bsl on NEON).
template <int Chains>
HWY_NOINLINE uint32_t PairProbe(int64_t calls, uint32_t seed) {
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> ds;
  using VU = hn::Vec<decltype(du)>;
  using VS = hn::Vec<decltype(ds)>;
  VU h[Chains];
  VS best[Chains], idx[Chains];
  for (int c = 0; c < Chains; ++c) {
    h[c] = hn::Add(hn::Set(du, seed + c), hn::Iota(du, 0));
    best[c] = hn::Set(ds, hwy::LimitsMin<int32_t>());
    idx[c] = hn::Zero(ds);
  }
  const VU prime = hn::Set(du, kPrime);
  const VU c1 = hn::Set(du, kFmix1);
  const VU c2 = hn::Set(du, kFmix2);
  const VU sign = hn::Set(du, 0x80000000u);
  for (int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kOpProbeInner; ++i) {
      const VU byte = hn::Set(du, 0x30u + static_cast<uint32_t>(i & 7));
      const VS node = hn::Set(ds, i);
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) {
        h[c] = hn::Mul(hn::Xor(h[c], byte), prime);
        VU s = hn::Xor(h[c], hn::ShiftRight<16>(h[c]));
        s = hn::Mul(s, c1);
        s = hn::Xor(s, hn::ShiftRight<13>(s));
        s = hn::Mul(s, c2);
        const VS score = hn::BitCast(ds, hn::Xor3(s, hn::ShiftRight<16>(s), sign));
        const auto gt = hn::Gt(score, best[c]);
        best[c] = hn::IfThenElse(gt, score, best[c]);
        idx[c] = hn::IfThenElse(gt, node, idx[c]);
      }
    }
    for (int c = 0; c < Chains; ++c) {
      KeepOpaque(best[c]);
      KeepOpaque(idx[c]);
    }
  }
  VS sum = hn::Xor(best[0], idx[0]);
  for (int c = 1; c < Chains; ++c) sum = hn::Xor(sum, hn::Xor(best[c], idx[c]));
  return LaneSum(du, hn::BitCast(du, sum));
}

template <int Chains>
uint32_t Probe(int probe, int64_t calls, uint32_t seed) {
  return probe == static_cast<int>(OpProbe::pair) ? PairProbe<Chains>(calls, seed) : MulProbe<Chains>(calls, seed);
}

uint32_t OpProbeImpl(int probe, int chains, int64_t calls, uint32_t seed) {
  switch (chains) {
    case 4: return Probe<4>(probe, calls, seed);
    case 8: return Probe<8>(probe, calls, seed);
    case 12: return Probe<12>(probe, calls, seed);
    default: return 0;
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw {
namespace kernels {

HRW_EXPORT(OpProbeImpl);

namespace {

// The entry of `target` in an HRW_EXPORT table (dispatch.hpp): the index
// ChosenTarget::GetIndex (hwy/targets.h) gives for a chosen-target mask of that target
// alone; null when it is not compiled here (or `target` is not one target bit).
template <class Fn>
Fn table_entry(Fn const* table, std::int64_t target) {
  if (target == 0 || (target & (target - 1)) != 0 || (target & HWY_TARGETS) == 0) return nullptr;
#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
  // One target compiled (aarch64 here: NEON alone): the table has that one entry.
  return table[0];
#endif
  const std::int64_t chosen =
      target == HWY_SCALAR ? HWY_CHOSEN_TARGET_MASK_SCALAR : HWY_CHOSEN_TARGET_SHIFT(target);
  if (chosen == 0) return nullptr;
  return table[hwy::Num0BitsBelowLS1Bit_Nonzero64(static_cast<std::uint64_t>(chosen))];
}

}  // namespace

bool op_probe_compiled(std::int64_t target) {
  return table_entry(HWY_DISPATCH_TABLE(OpProbeImpl), target) != nullptr;
}

std::uint32_t run_op_probe(std::int64_t target, OpProbe probe, int chains, std::int64_t calls,
                           std::uint32_t seed) {
  const auto fn = table_entry(HWY_DISPATCH_TABLE(OpProbeImpl), target);
  return fn ? fn(static_cast<int>(probe), chains, calls, seed) : 0;
}

}  // namespace kernels
}  // namespace hrw
#endif  // HWY_ONCE
