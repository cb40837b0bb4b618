// FNV-1a of seed ‖ key with keys in lanes: the per-key prefix state every node continues.
#if defined(HRW_KERNELS_KEY_HASH_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_KEY_HASH_INL_H_
#undef HRW_KERNELS_KEY_HASH_INL_H_
#else
#define HRW_KERNELS_KEY_HASH_INL_H_
#endif

#include "hwy/highway.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "hrw/hash.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Each lane's key bytes come as little-endian 4-byte words, transposed into a staging
// array [word][lane]. A group is taken only when every key is at most kMaxSimdKey bytes
// long and every word read lies inside the data; otherwise its keys are hashed by the scalar
// loop. Equal lengths (the usual case)
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
  for (size_t t = 0; t < len; ++t) state = (state ^ p[t]) * kFnvPrime;
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
  const V prime = hn::Set(du, kFnvPrime);
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

inline void HashKeyPrefixes(uint32_t seed_state, const char* data, const uint64_t* off, size_t data_size,
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
    const VU prime = hn::Set(du, kFnvPrime);
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

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
