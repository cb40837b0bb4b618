// The SIMD batch engine: one Highway source compiled for every target (foreach_target.h)
// and picked at run time (HWY_DYNAMIC_DISPATCH). Keys are in lanes (one 32-bit FNV-1a
// state per lane); the node ids are the trie program of kernels/kernel_api.hpp, identical in
// every lane, so each byte step is a broadcast Xor and a Mul.
//
// Exactness: the unweighted score is the u32 r, compared as int32 after flipping the sign
// bit (Highway 1.0.3 has no unsigned Gt on every target). The weighted key ln(u)/w repeats
// hrw::det::unit_from_hash / det::ln (src/det_math.cpp) op for op with IEEE binary64
// Mul/Add/Sub/Div, exact bit manipulation and IfThenElse; never MulAdd, and the project
// builds with -ffp-contract=off so the compiler fuses nothing either.
//
// This file also implements include/hrw/targets.hpp: the compiled-target mask must be read
// in the translation unit that compiles the kernels.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "hrw_kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"
#include "hwy/aligned_allocator.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "hrw/det_math.hpp"
#include "kernel_api.hpp"

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

// det::ln, op for op (see src/det_math.cpp).
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

// Unweighted: hash lanes are u32 (full vector), scores are int32 with the sign bit flipped
// so that signed order = unsigned order of r; node indices are int32 too.
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
    if (!fmix) return hn::BitCast(ds, hn::Xor(h, hn::Set(du, 0x80000000u)));
    // Fmix32 with its last xor-shift fused with the sign flip.
    h = hn::Xor(h, hn::ShiftRight<16>(h));
    h = hn::Mul(h, hn::Set(du, 0x85EBCA6Bu));
    h = hn::Xor(h, hn::ShiftRight<13>(h));
    h = hn::Mul(h, hn::Set(du, 0xC2B2AE35u));
    return hn::BitCast(ds, hn::Xor3(h, hn::ShiftRight<16>(h), hn::Set(du, 0x80000000u)));
  }
  HWY_INLINE hn::Vec<DS> Key(DS, hn::Vec<DS> pre, const Op&) const { return pre; }
  HWY_INLINE bool CannotBeat(DS, hn::Vec<DS>, hn::Vec<DS>, const Op&) const { return false; }
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
  const double* weights;
  // u = det::unit_from_hash(r): bits 2^52 | (r + 1), minus 2^52, times 2^-32 (all exact).
  HWY_INLINE hn::Vec<DS> Pre(DU du, DS d, hn::Vec<DU> h) const {
    if (fmix) h = Fmix32(du, h);
    const hn::RebindToUnsigned<DS> du64;
    const auto bits =
        hn::Or(hn::Set(du64, det::kTwo52Bits), hn::Add(hn::PromoteTo(du64, h), hn::Set(du64, 1)));
    return hn::Mul(hn::Sub(hn::BitCast(d, bits), hn::Set(d, det::kTwo52)), hn::Set(d, 0x1p-32));
  }
  // det::weighted_key(r, w) = det::ln(u) / w.
  HWY_INLINE hn::Vec<DS> Key(DS d, hn::Vec<DS> u, const Op& op) const {
    const auto l = DetLn(d, u);
    const double w = weights[op.node];
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
  HWY_INLINE bool CannotBeat(DS d, hn::Vec<DS> u, hn::Vec<DS> best, const Op& op) const {
    const auto x = hn::Sub(u, hn::Set(d, 1.0));
    const auto q = hn::Mul(hn::Mul(best, hn::Set(d, weights[op.node])),
                           hn::Set(d, 1.0 + 0x1p-50));
    return hn::AllTrue(d, hn::Lt(x, q));
  }
  static HWY_INLINE double Rank(TS s) { return s; }
};

constexpr uint32_t kPrime = 0x01000193u;

// ---- FNV-1a of seed ‖ key, keys in lanes ----
// Each lane's key bytes come as little-endian 4-byte words, transposed into a staging
// array [word][lane]. A group is taken only when every key is at most kMaxSimdKey bytes
// long and every word read lies inside the data; otherwise its keys are hashed by the scalar loop. Equal lengths (the usual case)
// need no masking; otherwise each byte step at position t >= min length is applied only in
// the lanes with t < len.
constexpr size_t kMaxSimdKey = 64;
// aarch64 g++ 12 crashes (ICE) compiling the masked unequal-length path for SVE targets;
// there, groups of unequal lengths take the scalar loop.
#undef HRW_MASKED_KEY_PATH
#if HWY_TARGET == HWY_SVE || HWY_TARGET == HWY_SVE2 || HWY_TARGET == HWY_SVE_256 || \
    HWY_TARGET == HWY_SVE2_128
#define HRW_MASKED_KEY_PATH 0
#else
#define HRW_MASKED_KEY_PATH 1
#endif
constexpr bool kMaskedKeyPath = HRW_MASKED_KEY_PATH;

HWY_INLINE uint32_t ScalarKeyState(uint32_t state, const unsigned char* p, size_t len) {
  for (size_t t = 0; t < len; ++t) state = (state ^ p[t]) * kPrime;
  return state;
}

template <class DU, class V = hn::Vec<DU>>
HWY_INLINE V ByteOf(DU du, V w, int j) {
  switch (j) {
    case 0: return hn::And(w, hn::Set(du, 0xFFu));
    case 1: return hn::And(hn::ShiftRight<8>(w), hn::Set(du, 0xFFu));
    case 2: return hn::And(hn::ShiftRight<16>(w), hn::Set(du, 0xFFu));
    default: return hn::ShiftRight<24>(w);
  }
}

// Four FNV-1a byte steps with the bytes of little-endian word w.
template <class DU, class V = hn::Vec<DU>>
HWY_INLINE V HashWord(DU du, V h, V w) {
  const V prime = hn::Set(du, kPrime);
  h = hn::Mul(hn::Xor(h, ByteOf(du, w, 0)), prime);
  h = hn::Mul(hn::Xor(h, ByteOf(du, w, 1)), prime);
  h = hn::Mul(hn::Xor(h, ByteOf(du, w, 2)), prime);
  return hn::Mul(hn::Xor(h, ByteOf(du, w, 3)), prime);
}

template <size_t kWords>
HWY_INLINE void Stage(const unsigned char* bytes, const uint64_t* off, size_t G,
                      uint32_t* HWY_RESTRICT stage) {
  for (size_t k = 0; k < G; ++k) {
    const unsigned char* kp = bytes + off[k];
    for (size_t w = 0; w < kWords; ++w) {
      uint32_t v;
      std::memcpy(&v, kp + 4 * w, 4);
      stage[w * G + k] = v;
    }
  }
}

void KeyStatesImpl(uint32_t seed_state, const char* data, const uint64_t* off, size_t data_size,
                   size_t lo, size_t hi, uint32_t* out) {
  const hn::ScalableTag<uint32_t> du;
  const hn::RebindToSigned<decltype(du)> di;
  using VU = hn::Vec<decltype(du)>;
  const size_t L = hn::Lanes(du);
  const size_t G = 2 * L;
  constexpr size_t kMaxG = 2 * (HWY_MAX_BYTES / 4);
  HWY_ALIGN uint32_t stage[kMaxSimdKey / 4 * kMaxG];
  HWY_ALIGN int32_t lens[kMaxG];
  const auto* bytes = reinterpret_cast<const unsigned char*>(data);
  size_t i = lo;
  for (; i + G <= hi; i += G) {
    // Batches stream from memory: fetch a few groups ahead (prefetches never fault).
    if (i + 8 * G < hi) {
      const unsigned char* ahead = bytes + off[i + 4 * G];
      const uint64_t span = std::min<uint64_t>(off[i + 5 * G] - off[i + 4 * G], 2048);
      for (uint64_t b = 0; b < span; b += 64) __builtin_prefetch(ahead + b);
      __builtin_prefetch(off + i + 8 * G);
      __builtin_prefetch(off + i + 8 * G + 8);
    }
    size_t min_len = SIZE_MAX, max_len = 0;
    for (size_t k = 0; k < G; ++k) {
      const size_t len = static_cast<size_t>(off[i + k + 1] - off[i + k]);
      min_len = std::min(min_len, len);
      max_len = std::max(max_len, len);
    }
    // The last lane's words end at its offset + round_up(max_len, 4); earlier lanes'
    // words end before that (offsets ascend).
    const size_t words = (max_len + 3) / 4;
    if (max_len > kMaxSimdKey || __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ||
        off[i + G - 1] + 4 * words > data_size || (!kMaskedKeyPath && min_len != max_len)) {
      for (size_t k = 0; k < G; ++k)
        out[i + k - lo] = ScalarKeyState(seed_state, bytes + off[i + k],
                                         static_cast<size_t>(off[i + k + 1] - off[i + k]));
      continue;
    }
    const VU prime = hn::Set(du, kPrime);
    if (min_len == max_len && max_len % 4 == 0 && max_len != 0 && max_len <= 16) {
      // Equal lengths of 4, 8, 12 or 16 bytes: the 2L keys are contiguous; deinterleave
      // their words straight from the data (reads end at off[i + G] <= data_size).
      const uint32_t* p32 = reinterpret_cast<const uint32_t*>(bytes + off[i]);
      const size_t nw = max_len / 4;
      VU a0 = hn::Zero(du), a1 = a0, a2 = a0, a3 = a0, b0 = a0, b1 = a0, b2 = a0, b3 = a0;
      switch (nw) {
        case 1:
          a0 = hn::LoadU(du, p32);
          b0 = hn::LoadU(du, p32 + L);
          break;
        case 2:
          hn::LoadInterleaved2(du, p32, a0, a1);
          hn::LoadInterleaved2(du, p32 + 2 * L, b0, b1);
          break;
        case 3:
          hn::LoadInterleaved3(du, p32, a0, a1, a2);
          hn::LoadInterleaved3(du, p32 + 3 * L, b0, b1, b2);
          break;
        default:
          hn::LoadInterleaved4(du, p32, a0, a1, a2, a3);
          hn::LoadInterleaved4(du, p32 + 4 * L, b0, b1, b2, b3);
          break;
      }
      VU h0 = hn::Set(du, seed_state), h1 = h0;
      h0 = HashWord(du, h0, a0);
      h1 = HashWord(du, h1, b0);
      if (nw > 1) {
        h0 = HashWord(du, h0, a1);
        h1 = HashWord(du, h1, b1);
      }
      if (nw > 2) {
        h0 = HashWord(du, h0, a2);
        h1 = HashWord(du, h1, b2);
      }
      if (nw > 3) {
        h0 = HashWord(du, h0, a3);
        h1 = HashWord(du, h1, b3);
      }
      hn::StoreU(h0, du, out + (i - lo));
      hn::StoreU(h1, du, out + (i - lo) + L);
      continue;
    }
    // Transpose the key words into stage[word][lane] with scalar loads and stores (on
    // this kind of machine that is much cheaper than hardware gathers).
    for (size_t k = 0; k < G; ++k) lens[k] = static_cast<int32_t>(off[i + k + 1] - off[i + k]);
    switch (words) {
#define HRW_STAGE_CASE(W) \
  case W: Stage<W>(bytes, off + i, G, stage); break;
      HRW_STAGE_CASE(1) HRW_STAGE_CASE(2) HRW_STAGE_CASE(3) HRW_STAGE_CASE(4)
      HRW_STAGE_CASE(5) HRW_STAGE_CASE(6) HRW_STAGE_CASE(7) HRW_STAGE_CASE(8)
      HRW_STAGE_CASE(9) HRW_STAGE_CASE(10) HRW_STAGE_CASE(11) HRW_STAGE_CASE(12)
      HRW_STAGE_CASE(13) HRW_STAGE_CASE(14) HRW_STAGE_CASE(15) HRW_STAGE_CASE(16)
#undef HRW_STAGE_CASE
      default: break;  // words == 0: all keys empty
    }
    VU h0 = hn::Set(du, seed_state), h1 = h0;
    size_t t = 0;
    // Whole words below the minimum length: no masks.
    for (; t + 4 <= min_len; t += 4) {
      const VU w0 = hn::Load(du, stage + t / 4 * G);
      const VU w1 = hn::Load(du, stage + t / 4 * G + L);
      h0 = hn::Mul(hn::Xor(h0, ByteOf(du, w0, 0)), prime);
      h1 = hn::Mul(hn::Xor(h1, ByteOf(du, w1, 0)), prime);
      h0 = hn::Mul(hn::Xor(h0, ByteOf(du, w0, 1)), prime);
      h1 = hn::Mul(hn::Xor(h1, ByteOf(du, w1, 1)), prime);
      h0 = hn::Mul(hn::Xor(h0, ByteOf(du, w0, 2)), prime);
      h1 = hn::Mul(hn::Xor(h1, ByteOf(du, w1, 2)), prime);
      h0 = hn::Mul(hn::Xor(h0, ByteOf(du, w0, 3)), prime);
      h1 = hn::Mul(hn::Xor(h1, ByteOf(du, w1, 3)), prime);
    }
#if HRW_MASKED_KEY_PATH
    if (t < max_len) {
      const auto len0 = hn::Load(di, lens), len1 = hn::Load(di, lens + L);
      for (; t < max_len; t += 4) {
        const VU w0 = hn::Load(du, stage + t / 4 * G);
        const VU w1 = hn::Load(du, stage + t / 4 * G + L);
        for (size_t j = 0; j < 4 && t + j < max_len; ++j) {
          const VU n0 = hn::Mul(hn::Xor(h0, ByteOf(du, w0, static_cast<int>(j))), prime);
          const VU n1 = hn::Mul(hn::Xor(h1, ByteOf(du, w1, static_cast<int>(j))), prime);
          if (t + j < min_len) {
            h0 = n0;
            h1 = n1;
          } else {
            const auto pos = hn::Set(di, static_cast<int32_t>(t + j));
            h0 = hn::IfThenElse(hn::RebindMask(du, hn::Gt(len0, pos)), n0, h0);
            h1 = hn::IfThenElse(hn::RebindMask(du, hn::Gt(len1, pos)), n1, h1);
          }
        }
      }
    }
#endif
    hn::StoreU(h0, du, out + (i - lo));
    hn::StoreU(h1, du, out + (i - lo) + L);
  }
  for (; i < hi; ++i)
    out[i - lo] = ScalarKeyState(seed_state, bytes + off[i],
                                 static_cast<size_t>(off[i + 1] - off[i]));
}

// Offers candidate (s, ci) to the sorted lists best/idx (kR slots of one vector each, in
// memory: SVE vectors cannot live in arrays). `fill`: slots >= fill are still empty and
// accept unconditionally. kLex: compare (score desc, index asc); otherwise strict Gt
// suffices because the candidate comes later in tie order than everything in the list.
template <size_t kR, bool kLex, class DS, class VS = hn::Vec<DS>>
HWY_INLINE void Insert(DS ds, hn::TFromD<DS>* HWY_RESTRICT best, hn::TFromD<DS>* HWY_RESTRICT idx,
                       VS s, VS ci, size_t fill) {
  const size_t L = hn::Lanes(ds);
  auto beats = [&](size_t j) {
    const VS b = hn::Load(ds, best + j * L);
    if (!kLex) return hn::Gt(s, b);
    const VS bi = hn::Load(ds, idx + j * L);
    return hn::Or(hn::Gt(s, b), hn::And(hn::Eq(s, b), hn::Lt(ci, bi)));
  };
  const auto all = hn::Eq(s, s);
  auto gt_j = (kR - 1 >= fill) ? all : beats(kR - 1);
  if (fill >= kR && hn::AllFalse(ds, gt_j)) return;
  for (size_t j = kR - 1; j >= 1; --j) {
    const auto gt_prev = (j - 1 >= fill) ? all : beats(j - 1);
    const VS bp = hn::Load(ds, best + (j - 1) * L);
    const VS ip = hn::Load(ds, idx + (j - 1) * L);
    const VS bj = hn::Load(ds, best + j * L);
    const VS ij = hn::Load(ds, idx + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, bp, s), bj), ds, best + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, ip, ci), ij), ds, idx + j * L);
    gt_j = gt_prev;
  }
  const VS b0 = hn::Load(ds, best);
  const VS i0 = hn::Load(ds, idx);
  hn::Store(hn::IfThenElse(gt_j, s, b0), ds, best);
  hn::Store(hn::IfThenElse(gt_j, ci, i0), ds, idx);
}

template <class P>
class Runner {
 public:
  using DU = typename P::DU;
  using DS = typename P::DS;
  using TS = typename P::TS;
  using VU = hn::Vec<DU>;
  using VS = hn::Vec<DS>;

  Runner(const KernelPlan& plan, const P& policy) : plan_(plan), p_(policy) {
    L_ = hn::Lanes(du_);
    stack_ = hwy::AllocateAligned<uint32_t>(std::max<size_t>(plan.program.slots, 1) * 4 * L_);
    pad_ = hwy::AllocateAligned<uint32_t>(4 * L_);
    // 2 * kMaxKernelReplicas: RunOwnerWeighted's pending queues also live here.
    out_s_ = hwy::AllocateAligned<TS>(2 * kMaxKernelReplicas * L_);
    out_i_ = hwy::AllocateAligned<TS>(2 * kMaxKernelReplicas * L_);
    if (plan.distinct) {
      dom_s_ = hwy::AllocateAligned<TS>(std::max<size_t>(plan.domain_count, 1) * L_);
      dom_i_ = hwy::AllocateAligned<TS>(std::max<size_t>(plan.domain_count, 1) * L_);
    }
  }

  void Run(const uint32_t* states, size_t n, uint32_t* nodes, double* rank, size_t stride) {
    const uint32_t sel = plan_.select;
    if (!plan_.distinct && sel == 1) {
      if constexpr (P::kWeighted) return RunOwnerWeighted(states, n, nodes, rank, stride);
      else return RunOwnerWide(states, n, nodes, rank, stride);
    }
    switch (sel) {
      case 1: return RunTop<1>(states, n, nodes, rank, stride);
      case 2: return RunTop<2>(states, n, nodes, rank, stride);
      case 3: return RunTop<3>(states, n, nodes, rank, stride);
      case 4: return RunTop<4>(states, n, nodes, rank, stride);
      default: return RunTop<kMaxKernelReplicas>(states, n, nodes, rank, stride);
    }
  }

 private:
  // The states of keys [base, base + count) padded to `lanes` lanes.
  const uint32_t* Group(const uint32_t* states, size_t base, size_t count, size_t lanes) {
    if (count == lanes) return states + base;
    std::memcpy(pad_.get(), states + base, count * sizeof(uint32_t));
    std::memset(pad_.get() + count, 0, (lanes - count) * sizeof(uint32_t));
    return pad_.get();
  }

  void Emit(size_t base, size_t count, size_t slots, uint32_t* nodes, double* rank,
            size_t stride) {
    for (size_t i = 0; i < count; ++i) {
      for (size_t j = 0; j < slots; ++j) {
        nodes[(base + i) * stride + j] = static_cast<uint32_t>(out_i_[j * L_ + i]);
        if (rank) rank[(base + i) * stride + j] = P::Rank(out_s_[j * L_ + i]);
      }
    }
  }

  // Unweighted R = 1: kWays key vectors per pass (4 where there are 32 vector registers),
  // best score and node of each lane in registers.
#if HWY_ARCH_X86 && HWY_TARGET > HWY_AVX3
  static constexpr size_t kWays = 2;
#else
  static constexpr size_t kWays = 4;
#endif
  void RunOwnerWide(const uint32_t* states, size_t n, uint32_t* nodes, double* rank,
                    size_t stride) {
    const size_t L = L_, G = kWays * L;
    const Op* ops = plan_.program.ops.data();
    const size_t n_ops = plan_.program.ops.size();
    const uint8_t* bytes = plan_.program.bytes.data();
    uint32_t* stack = stack_.get();
    const VU prime = hn::Set(du_, kPrime);
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      const uint32_t* src = Group(states, base, count, G);
      for (size_t k = 0; k < kWays; ++k) hn::Store(hn::LoadU(du_, src + k * L), du_, stack + k * L);
      // Leaf 0 is the first leaf: it fills the slot (all scores beat LowestValue, and
      // the node index is 0 anyway).
      VS best0 = hn::Set(ds_, hwy::LowestValue<TS>()), best1 = best0, best2 = best0, best3 = best0;
      VS idx0 = hn::Zero(ds_), idx1 = idx0, idx2 = idx0, idx3 = idx0;
      for (size_t o = 0; o < n_ops; ++o) {
        const Op& op = ops[o];
        const uint32_t* in = stack + op.src * G;
        VU h0 = hn::Load(du_, in);
        VU h1 = hn::Load(du_, in + L);
        VU h2 = h0, h3 = h0;
        if constexpr (kWays == 4) {
          h2 = hn::Load(du_, in + 2 * L);
          h3 = hn::Load(du_, in + 3 * L);
        }
        const uint8_t* b = bytes + op.offset;
        for (uint32_t t = 0; t < op.length; ++t) {
          const VU bv = hn::Set(du_, b[t]);
          h0 = hn::Mul(hn::Xor(h0, bv), prime);
          h1 = hn::Mul(hn::Xor(h1, bv), prime);
          if constexpr (kWays == 4) {
            h2 = hn::Mul(hn::Xor(h2, bv), prime);
            h3 = hn::Mul(hn::Xor(h3, bv), prime);
          }
        }
        if (op.kind == kExtend) {
          uint32_t* outp = stack + op.dst * G;
          hn::Store(h0, du_, outp);
          hn::Store(h1, du_, outp + L);
          if constexpr (kWays == 4) {
            hn::Store(h2, du_, outp + 2 * L);
            hn::Store(h3, du_, outp + 3 * L);
          }
          continue;
        }
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        const VS s0 = p_.Pre(du_, ds_, h0);
        const VS s1 = p_.Pre(du_, ds_, h1);
        const auto gt0 = hn::Gt(s0, best0);
        const auto gt1 = hn::Gt(s1, best1);
        best0 = hn::IfThenElse(gt0, s0, best0);
        best1 = hn::IfThenElse(gt1, s1, best1);
        idx0 = hn::IfThenElse(gt0, ci, idx0);
        idx1 = hn::IfThenElse(gt1, ci, idx1);
        if constexpr (kWays == 4) {
          const VS s2 = p_.Pre(du_, ds_, h2);
          const VS s3 = p_.Pre(du_, ds_, h3);
          const auto gt2 = hn::Gt(s2, best2);
          const auto gt3 = hn::Gt(s3, best3);
          best2 = hn::IfThenElse(gt2, s2, best2);
          best3 = hn::IfThenElse(gt3, s3, best3);
          idx2 = hn::IfThenElse(gt2, ci, idx2);
          idx3 = hn::IfThenElse(gt3, ci, idx3);
        }
      }
      hn::Store(best0, ds_, out_s_.get());
      hn::Store(best1, ds_, out_s_.get() + L);
      hn::Store(idx0, ds_, out_i_.get());
      hn::Store(idx1, ds_, out_i_.get() + L);
      if constexpr (kWays == 4) {
        hn::Store(best2, ds_, out_s_.get() + 2 * L);
        hn::Store(best3, ds_, out_s_.get() + 3 * L);
        hn::Store(idx2, ds_, out_i_.get() + 2 * L);
        hn::Store(idx3, ds_, out_i_.get() + 3 * L);
      }
      for (size_t i = 0; i < count; ++i) {
        nodes[(base + i) * stride] = static_cast<uint32_t>(out_i_[i]);
        if (rank) rank[(base + i) * stride] = P::Rank(out_s_[i]);
      }
    }
  }

  // Weighted R = 1. The gate (Weighted::CannotBeat) decides most candidates without a
  // logarithm; the rest are queued (up to kPend per key vector, in node order) and their
  // logarithms are computed together, so the long ln chains overlap instead of each one
  // waiting for the previous best (and the gate's branch no longer waits for a logarithm).
  // The gate compares with the best as of the last flush: best only grows, so "cannot beat
  // the older best" still proves the candidate would not replace the current one (strict
  // Gt), and queued candidates are merged in node order with strict Gt: the same result as
  // one at a time.
  static constexpr size_t kPend = 8;
  // Computes the keys of the np queued candidate vectors and merges them in order.
  HWY_INLINE void Flush(const TS* pu, const uint32_t* pn, size_t np, TS* keys, VS& best,
                        VS& idx) {
    const size_t L = L_;
    for (size_t j = 0; j < np; ++j) {
      const VS l = DetLn(ds_, hn::Load(ds_, pu + j * L));
      const double w = p_.weights[pn[j]];
      hn::Store(w == 1.0 ? l : hn::Div(l, hn::Set(ds_, w)), ds_, keys + j * L);  // x/1 == x
    }
    for (size_t j = 0; j < np; ++j) {
      const VS sj = hn::Load(ds_, keys + j * L);
      const auto gt = hn::Gt(sj, best);
      best = hn::IfThenElse(gt, sj, best);
      idx = hn::IfThenElse(gt, hn::Set(ds_, static_cast<TS>(pn[j])), idx);
    }
  }
  void RunOwnerWeighted(const uint32_t* states, size_t n, uint32_t* nodes, double* rank,
                        size_t stride) {
    const size_t L = L_, G = 2 * L;
    const Op* ops = plan_.program.ops.data();
    const size_t n_ops = plan_.program.ops.size();
    const uint8_t* bytes = plan_.program.bytes.data();
    uint32_t* stack = stack_.get();
    static_assert(2 * kMaxKernelReplicas >= 2 * kPend, "pending buffers");
    TS* pend = out_s_.get();  // 2 * kPend vectors
    TS* keys = out_i_.get();  // kPend vectors
    HWY_ALIGN TS emit_s[2 * (HWY_MAX_BYTES / sizeof(TS))];
    HWY_ALIGN TS emit_i[2 * (HWY_MAX_BYTES / sizeof(TS))];
    const VU prime = hn::Set(du_, kPrime);
    const VS ninf = hn::Set(ds_, -HUGE_VAL);
    TS* pend0 = pend;
    TS* pend1 = pend + kPend * L;
    for (size_t base = 0; base < n; base += G) {
      const size_t count = std::min(G, n - base);
      const uint32_t* src = Group(states, base, count, G);
      hn::Store(hn::LoadU(du_, src), du_, stack);
      hn::Store(hn::LoadU(du_, src + L), du_, stack + L);
      VS best0 = ninf, best1 = ninf;  // every key ln(u)/w is finite: node 0 replaces -inf
      VS idx0 = hn::Zero(ds_), idx1 = idx0;
      uint32_t pn0[kPend], pn1[kPend];
      size_t np0 = 0, np1 = 0;
      for (size_t o = 0; o < n_ops; ++o) {
        const Op& op = ops[o];
        VU h0 = hn::Load(du_, stack + op.src * G);
        VU h1 = hn::Load(du_, stack + op.src * G + L);
        const uint8_t* b = bytes + op.offset;
        for (uint32_t t = 0; t < op.length; ++t) {
          const VU bv = hn::Set(du_, b[t]);
          h0 = hn::Mul(hn::Xor(h0, bv), prime);
          h1 = hn::Mul(hn::Xor(h1, bv), prime);
        }
        if (op.kind == kExtend) {
          hn::Store(h0, du_, stack + op.dst * G);
          hn::Store(h1, du_, stack + op.dst * G + L);
          continue;
        }
        const VS u0 = p_.Pre(du_, ds_, h0);
        const VS u1 = p_.Pre(du_, ds_, h1);
        // Queue without a data-dependent branch: store, then count it only if needed.
        hn::Store(u0, ds_, pend0 + np0 * L);
        hn::Store(u1, ds_, pend1 + np1 * L);
        pn0[np0] = op.node;
        pn1[np1] = op.node;
        np0 += p_.CannotBeat(ds_, u0, best0, op) ? 0 : 1;
        np1 += p_.CannotBeat(ds_, u1, best1, op) ? 0 : 1;
        if (np0 == kPend) {
          Flush(pend0, pn0, np0, keys, best0, idx0);
          np0 = 0;
        }
        if (np1 == kPend) {
          Flush(pend1, pn1, np1, keys, best1, idx1);
          np1 = 0;
        }
      }
      Flush(pend0, pn0, np0, keys, best0, idx0);
      Flush(pend1, pn1, np1, keys, best1, idx1);
      hn::Store(best0, ds_, emit_s);
      hn::Store(best1, ds_, emit_s + L);
      hn::Store(idx0, ds_, emit_i);
      hn::Store(idx1, ds_, emit_i + L);
      for (size_t i = 0; i < count; ++i) {
        nodes[(base + i) * stride] = static_cast<uint32_t>(emit_i[i]);
        if (rank) rank[(base + i) * stride] = P::Rank(emit_s[i]);
      }
    }
  }

  // Top-kR (kR >= select), with or without failure domains. One key vector per pass; the
  // kR sorted (score, node) slots of each lane live in L1.
  template <size_t kR>
  void RunTop(const uint32_t* states, size_t n, uint32_t* nodes, double* rank, size_t stride) {
    const size_t L = L_;
    const Op* ops = plan_.program.ops.data();
    const size_t n_ops = plan_.program.ops.size();
    const uint8_t* bytes = plan_.program.bytes.data();
    const bool distinct = plan_.distinct;
    const size_t domains = plan_.domain_count;
    uint32_t* stack = stack_.get();
    TS* best = out_s_.get();
    TS* idx = out_i_.get();
    TS* dom_s = dom_s_.get();
    TS* dom_i = dom_i_.get();
    const size_t emit_slots = plan_.select;
    for (size_t base = 0; base < n; base += L) {
      const size_t count = std::min(L, n - base);
      const uint32_t* src = Group(states, base, count, L);
      hn::Store(hn::LoadU(du_, src), du_, stack);
      for (size_t j = 0; j < kR; ++j) {
        hn::Store(hn::Set(ds_, hwy::LowestValue<TS>()), ds_, best + j * L);
        hn::Store(hn::Set(ds_, static_cast<TS>(-1)), ds_, idx + j * L);
      }
      for (size_t o = 0; o < n_ops; ++o) {
        const Op& op = ops[o];
        VU h = hn::Load(du_, stack + op.src * L);
        const uint8_t* b = bytes + op.offset;
        for (uint32_t t = 0; t < op.length; ++t)
          h = hn::Mul(hn::Xor(h, hn::Set(du_, b[t])), hn::Set(du_, kPrime));
        if (op.kind == kExtend) {
          hn::Store(h, du_, stack + op.dst * L);
          continue;
        }
        const VS pre = p_.Pre(du_, ds_, h);
        const VS ci = hn::Set(ds_, static_cast<TS>(op.node));
        if (!distinct) {
          if (op.node >= kR &&
              p_.CannotBeat(ds_, pre, hn::Load(ds_, best + (kR - 1) * L), op))
            continue;
          Insert<kR, false>(ds_, best, idx, p_.Key(ds_, pre, op), ci,
                            op.node < kR ? op.node : kR);
          continue;
        }
        TS* ps = dom_s + op.domain * L;
        TS* pi = dom_i + op.domain * L;
        if (op.first_in_domain) {
          hn::Store(p_.Key(ds_, pre, op), ds_, ps);
          hn::Store(ci, ds_, pi);
        } else {
          const VS bs = hn::Load(ds_, ps);
          if (p_.CannotBeat(ds_, pre, bs, op)) continue;
          const VS s = p_.Key(ds_, pre, op);
          const auto gt = hn::Gt(s, bs);  // strict: ties keep the earlier (smaller) id
          hn::Store(hn::IfThenElse(gt, s, bs), ds_, ps);
          hn::Store(hn::IfThenElse(gt, ci, hn::Load(ds_, pi)), ds_, pi);
        }
      }
      if (distinct) {
        // Walking the ranking and skipping taken domains accepts exactly each domain's
        // best node, in ranking order: the top-R of the representatives under
        // (score desc, node index asc).
        for (size_t d = 0; d < domains; ++d)
          Insert<kR, true>(ds_, best, idx, hn::Load(ds_, dom_s + d * L),
                           hn::Load(ds_, dom_i + d * L), d < kR ? d : kR);
      }
      Emit(base, count, emit_slots, nodes, rank, stride);
    }
  }

  const KernelPlan& plan_;
  P p_;
  DU du_;
  DS ds_;
  size_t L_ = 0;
  hwy::AlignedFreeUniquePtr<uint32_t[]> stack_, pad_;
  hwy::AlignedFreeUniquePtr<TS[]> out_s_, out_i_, dom_s_, dom_i_;
};

void RunBatchImpl(const KernelPlan& plan, const uint32_t* states, size_t n, uint32_t* nodes,
                  double* rank, size_t stride) {
  if (n == 0) return;
  if (plan.weighted) {
    Runner<Weighted> runner(plan, Weighted{plan.fmix, plan.weights.data()});
    runner.Run(states, n, nodes, rank, stride);
  } else {
    Runner<Unweighted> runner(plan, Unweighted{plan.fmix});
    runner.Run(states, n, nodes, rank, stride);
  }
}

int64_t TargetImpl() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
#include "hrw/targets.hpp"

#include <stdexcept>

namespace hrw {
namespace kernels {

HWY_EXPORT(RunBatchImpl);
HWY_EXPORT(TargetImpl);
HWY_EXPORT(KeyStatesImpl);

void run_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
               std::uint32_t* nodes, double* rank, std::size_t stride) {
  HWY_DYNAMIC_DISPATCH(RunBatchImpl)(plan, states, n, nodes, rank, stride);
}

void key_states(std::uint32_t seed_state, const char* data, const std::uint64_t* off,
                std::size_t data_size, std::size_t lo, std::size_t hi, std::uint32_t* out) {
  HWY_DYNAMIC_DISPATCH(KeyStatesImpl)(seed_state, data, off, data_size, lo, hi, out);
}

std::int64_t dispatched_target() { return HWY_DYNAMIC_DISPATCH(TargetImpl)(); }

}  // namespace kernels

namespace {

std::vector<SimdTarget> targets_of(std::int64_t mask) {
  std::vector<SimdTarget> out;
  // Highway numbers better targets with lower bits: ascending bits = best first.
  for (std::int64_t m = mask; m != 0; m &= m - 1) {
    const std::int64_t bit = m & -m;
    out.push_back(SimdTarget{bit, hwy::TargetName(bit)});
  }
  return out;
}

// Highway 1.0.3 on Arm: SupportedTargets() resets the chosen target (dropping SVE_256 /
// SVE2_128); re-apply it after every call.
std::int64_t supported() {
  const std::int64_t s = hwy::SupportedTargets();
  hwy::GetChosenTarget().Update(s);
  return s;
}

}  // namespace

std::vector<SimdTarget> compiled_targets() { return targets_of(HWY_TARGETS); }

std::vector<SimdTarget> runnable_targets() {
  // With a forced target SupportedTargets() reports only it: detect with the mock off.
  static const std::int64_t detected = [] {
    return supported();
  }();
  return targets_of(detected & HWY_TARGETS);
}

namespace {
std::int64_t g_forced_bits = 0;
}  // namespace

std::int64_t forced_target() { return g_forced_bits; }

void force_target(std::int64_t bits) {
  if (bits != 0) {
    bool ok = false;
    for (const SimdTarget& t : runnable_targets()) ok = ok || t.bits == bits;
    if (!ok)
      throw std::invalid_argument("force_target: target " + std::to_string(bits) +
                                  " is not compiled in or not supported by this CPU");
  }
  hwy::SetSupportedTargetsForTest(bits);
  supported();
  g_forced_bits = bits;
}

SimdTarget active_target() {
  const std::int64_t bit = kernels::dispatched_target();
  return SimdTarget{bit, hwy::TargetName(bit)};
}

}  // namespace hrw
#endif  // HWY_ONCE
