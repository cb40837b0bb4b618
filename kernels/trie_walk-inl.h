// The trie walk: runs a program of kernels/kernel_api.hpp on kWays vectors of FNV-1a states
// (kWays * Lanes keys) and hands every leaf's states to a visitor. The only place that
// executes the program; the placement and plan kernels differ only in their visitors.
#if defined(HRW_KERNELS_TRIE_WALK_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_TRIE_WALK_INL_H_
#undef HRW_KERNELS_TRIE_WALK_INL_H_
#else
#define HRW_KERNELS_TRIE_WALK_INL_H_
#endif

#include "hwy/highway.h"

#include "hrw/hash.hpp"
#include "kernel_api.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// `stack` holds program.slots slots of kWays * Lanes(du) states, slot 0 (the states after
// seed ‖ key) filled by the caller. leaf(op, h0, h1, h2, h3) receives the FNV-1a of
// seed ‖ key ‖ id for way 0..kWays-1 (the unused ways repeat h0). kWays is 1, 2 or 4:
// independent multiply chains hide the multiply latency (SVE vectors cannot be put in
// arrays, hence the named ways).
template <size_t kWays, class DU, class Leaf>
HWY_INLINE void WalkTrie(DU du, const TrieProgram& program, uint32_t* HWY_RESTRICT stack,
                         const Leaf& leaf) {
  static_assert(kWays == 1 || kWays == 2 || kWays == 4, "ways");
  using VU = hn::Vec<DU>;
  const size_t L = hn::Lanes(du), G = kWays * L;
  const Op* ops = program.ops.data();
  const size_t n_ops = program.ops.size();
  const uint8_t* bytes = program.bytes.data();
  const VU prime = hn::Set(du, kFnvPrime);
  for (size_t o = 0; o < n_ops; ++o) {
    const Op& op = ops[o];
    const uint32_t* in = stack + op.src * G;
    VU h0 = hn::Load(du, in);
    VU h1 = h0, h2 = h0, h3 = h0;
    if constexpr (kWays >= 2) h1 = hn::Load(du, in + L);
    if constexpr (kWays == 4) {
      h2 = hn::Load(du, in + 2 * L);
      h3 = hn::Load(du, in + 3 * L);
    }
    const uint8_t* b = bytes + op.offset;
    for (uint32_t t = 0; t < op.length; ++t) {
      const VU bv = hn::Set(du, b[t]);
      h0 = hn::Mul(hn::Xor(h0, bv), prime);
      if constexpr (kWays >= 2) h1 = hn::Mul(hn::Xor(h1, bv), prime);
      if constexpr (kWays == 4) {
        h2 = hn::Mul(hn::Xor(h2, bv), prime);
        h3 = hn::Mul(hn::Xor(h3, bv), prime);
      }
    }
    // Most ops are leaves (a trie of N ids has fewer than N extends): keep them inline.
    if (HWY_UNLIKELY(op.kind == kExtend)) {
      uint32_t* out = stack + op.dst * G;
      hn::Store(h0, du, out);
      if constexpr (kWays >= 2) hn::Store(h1, du, out + L);
      if constexpr (kWays == 4) {
        hn::Store(h2, du, out + 2 * L);
        hn::Store(h3, du, out + 3 * L);
      }
      continue;
    }
    leaf(op, h0, h1, h2, h3);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
