#include "bench/op_bounds.hpp"

#include <stdexcept>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
// GCC 12 avx512fintrin.h: _mm512_srli_epi32 and friends read an intentionally undefined
// vector ("__Y is used uninitialized"); a header false positive.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#define HRW_PROBE_X86 1
#elif defined(__aarch64__)
#include <arm_neon.h>
#define HRW_PROBE_NEON 1
#endif

namespace hrw::bench {

namespace {

constexpr std::uint32_t kPrime = 0x01000193u;
constexpr std::uint32_t kFmix1 = 0x85EBCA6Bu;
constexpr std::uint32_t kFmix2 = 0xC2B2AE35u;

#if HRW_PROBE_X86
template <int Chains>
__attribute__((target("avx512f"), noinline)) std::uint32_t mul_avx512(std::int64_t calls,
                                                                      std::uint32_t seed) {
  __m512i acc[Chains];
  for (int c = 0; c < Chains; ++c)
    acc[c] = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(seed) + c),
                              _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __m512i prime = _mm512_set1_epi32(static_cast<int>(kPrime));
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) acc[c] = _mm512_mullo_epi32(acc[c], prime);
    }
    // Keep the accumulators live and opaque: no folding of the loop into a power.
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+v"(acc[c]));
  }
  __m512i sum = acc[0];
  for (int c = 1; c < Chains; ++c) sum = _mm512_xor_si512(sum, acc[c]);
  alignas(64) std::uint32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  std::uint32_t r = 0;
  for (std::uint32_t l : lanes) r += l;
  return r;
}

template <int Chains>
__attribute__((target("avx2"), noinline)) std::uint32_t mul_avx2(std::int64_t calls,
                                                                 std::uint32_t seed) {
  __m256i acc[Chains];
  for (int c = 0; c < Chains; ++c)
    acc[c] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(seed) + c),
                              _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
  const __m256i prime = _mm256_set1_epi32(static_cast<int>(kPrime));
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) acc[c] = _mm256_mullo_epi32(acc[c], prime);
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+x"(acc[c]));
  }
  __m256i sum = acc[0];
  for (int c = 1; c < Chains; ++c) sum = _mm256_xor_si256(sum, acc[c]);
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
  std::uint32_t r = 0;
  for (std::uint32_t l : lanes) r += l;
  return r;
}

template <int Chains>
__attribute__((target("avx512f"), noinline)) std::uint32_t pair_avx512(std::int64_t calls,
                                                                       std::uint32_t seed) {
  __m512i h[Chains], best[Chains], idx[Chains];
  for (int c = 0; c < Chains; ++c) {
    h[c] = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(seed) + c),
                            _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
    best[c] = _mm512_set1_epi32(INT32_MIN);
    idx[c] = _mm512_setzero_si512();
  }
  const __m512i prime = _mm512_set1_epi32(static_cast<int>(kPrime));
  const __m512i c1 = _mm512_set1_epi32(static_cast<int>(kFmix1));
  const __m512i c2 = _mm512_set1_epi32(static_cast<int>(kFmix2));
  const __m512i sign = _mm512_set1_epi32(INT32_MIN);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
      const __m512i byte = _mm512_set1_epi32(0x30 + (i & 7));
      const __m512i node = _mm512_set1_epi32(i);
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) {
        h[c] = _mm512_mullo_epi32(_mm512_xor_si512(h[c], byte), prime);
        __m512i s = _mm512_xor_si512(h[c], _mm512_srli_epi32(h[c], 16));
        s = _mm512_mullo_epi32(s, c1);
        s = _mm512_xor_si512(s, _mm512_srli_epi32(s, 13));
        s = _mm512_mullo_epi32(s, c2);
        s = _mm512_xor_si512(_mm512_xor_si512(s, _mm512_srli_epi32(s, 16)), sign);
        const __mmask16 gt = _mm512_cmpgt_epi32_mask(s, best[c]);
        best[c] = _mm512_mask_mov_epi32(best[c], gt, s);
        idx[c] = _mm512_mask_mov_epi32(idx[c], gt, node);
      }
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+v"(best[c]), "+v"(idx[c]));
  }
  __m512i sum = _mm512_xor_si512(best[0], idx[0]);
  for (int c = 1; c < Chains; ++c) sum = _mm512_xor_si512(sum, _mm512_xor_si512(best[c], idx[c]));
  alignas(64) std::uint32_t lanes[16];
  _mm512_store_si512(lanes, sum);
  std::uint32_t r = 0;
  for (std::uint32_t l : lanes) r += l;
  return r;
}

// AVX2 has no mask registers: the compare gives a vector mask and the two masked moves
// are blends, as Highway's AVX2 IfThenElse is.
template <int Chains>
__attribute__((target("avx2"), noinline)) std::uint32_t pair_avx2(std::int64_t calls,
                                                                 std::uint32_t seed) {
  __m256i h[Chains], best[Chains], idx[Chains];
  for (int c = 0; c < Chains; ++c) {
    h[c] = _mm256_add_epi32(_mm256_set1_epi32(static_cast<int>(seed) + c),
                            _mm256_set_epi32(7, 6, 5, 4, 3, 2, 1, 0));
    best[c] = _mm256_set1_epi32(INT32_MIN);
    idx[c] = _mm256_setzero_si256();
  }
  const __m256i prime = _mm256_set1_epi32(static_cast<int>(kPrime));
  const __m256i c1 = _mm256_set1_epi32(static_cast<int>(kFmix1));
  const __m256i c2 = _mm256_set1_epi32(static_cast<int>(kFmix2));
  const __m256i sign = _mm256_set1_epi32(INT32_MIN);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
      const __m256i byte = _mm256_set1_epi32(0x30 + (i & 7));
      const __m256i node = _mm256_set1_epi32(i);
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) {
        h[c] = _mm256_mullo_epi32(_mm256_xor_si256(h[c], byte), prime);
        __m256i s = _mm256_xor_si256(h[c], _mm256_srli_epi32(h[c], 16));
        s = _mm256_mullo_epi32(s, c1);
        s = _mm256_xor_si256(s, _mm256_srli_epi32(s, 13));
        s = _mm256_mullo_epi32(s, c2);
        s = _mm256_xor_si256(_mm256_xor_si256(s, _mm256_srli_epi32(s, 16)), sign);
        const __m256i gt = _mm256_cmpgt_epi32(s, best[c]);
        best[c] = _mm256_blendv_epi8(best[c], s, gt);
        idx[c] = _mm256_blendv_epi8(idx[c], node, gt);
      }
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+x"(best[c]), "+x"(idx[c]));
  }
  __m256i sum = _mm256_xor_si256(best[0], idx[0]);
  for (int c = 1; c < Chains; ++c) sum = _mm256_xor_si256(sum, _mm256_xor_si256(best[c], idx[c]));
  alignas(32) std::uint32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), sum);
  std::uint32_t r = 0;
  for (std::uint32_t l : lanes) r += l;
  return r;
}
#endif  // HRW_PROBE_X86

#if HRW_PROBE_NEON
// NEON: 4 lanes per vector. Under qemu this measures the emulator, not a CPU.
template <int Chains>
__attribute__((noinline)) std::uint32_t mul_neon(std::int64_t calls, std::uint32_t seed) {
  uint32x4_t acc[Chains];
  const uint32_t init[4] = {0, 1, 2, 3};
  for (int c = 0; c < Chains; ++c) acc[c] = vaddq_u32(vdupq_n_u32(seed + c), vld1q_u32(init));
  const uint32x4_t prime = vdupq_n_u32(kPrime);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) acc[c] = vmulq_u32(acc[c], prime);
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+w"(acc[c]));
  }
  uint32x4_t sum = acc[0];
  for (int c = 1; c < Chains; ++c) sum = veorq_u32(sum, acc[c]);
  return vaddvq_u32(sum);
}

// NEON compares unsigned lanes directly: no sign flip.
template <int Chains>
__attribute__((noinline)) std::uint32_t pair_neon(std::int64_t calls, std::uint32_t seed) {
  uint32x4_t h[Chains], best[Chains], idx[Chains];
  const uint32_t init[4] = {0, 1, 2, 3};
  for (int c = 0; c < Chains; ++c) {
    h[c] = vaddq_u32(vdupq_n_u32(seed + c), vld1q_u32(init));
    best[c] = vdupq_n_u32(0);
    idx[c] = vdupq_n_u32(0);
  }
  const uint32x4_t prime = vdupq_n_u32(kPrime);
  const uint32x4_t c1 = vdupq_n_u32(kFmix1);
  const uint32x4_t c2 = vdupq_n_u32(kFmix2);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kProbeInner; ++i) {
      const uint32x4_t byte = vdupq_n_u32(0x30u + static_cast<std::uint32_t>(i & 7));
      const uint32x4_t node = vdupq_n_u32(static_cast<std::uint32_t>(i));
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) {
        h[c] = vmulq_u32(veorq_u32(h[c], byte), prime);
        uint32x4_t s = veorq_u32(h[c], vshrq_n_u32(h[c], 16));
        s = vmulq_u32(s, c1);
        s = veorq_u32(s, vshrq_n_u32(s, 13));
        s = vmulq_u32(s, c2);
        s = veorq_u32(s, vshrq_n_u32(s, 16));
        const uint32x4_t gt = vcgtq_u32(s, best[c]);
        best[c] = vbslq_u32(gt, s, best[c]);
        idx[c] = vbslq_u32(gt, node, idx[c]);
      }
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+w"(best[c]), "+w"(idx[c]));
  }
  uint32x4_t sum = veorq_u32(best[0], idx[0]);
  for (int c = 1; c < Chains; ++c) sum = veorq_u32(sum, veorq_u32(best[c], idx[c]));
  return vaddvq_u32(sum);
}
#endif  // HRW_PROBE_NEON

bool cpu_runs(ProbeIsa isa) {
  switch (isa) {
#if HRW_PROBE_X86
    case ProbeIsa::avx512: return __builtin_cpu_supports("avx512f");
    case ProbeIsa::avx2: return __builtin_cpu_supports("avx2");
#endif
#if HRW_PROBE_NEON
    case ProbeIsa::neon: return true;  // NEON is part of the aarch64 base
#endif
    default: return false;
  }
}

using ProbeFn = std::uint32_t (*)(std::int64_t, std::uint32_t);

template <template <int> class Pick>
ProbeFn by_chains(int chains) {
  switch (chains) {
    case 4: return Pick<4>::fn;
    case 8: return Pick<8>::fn;
    case 12: return Pick<12>::fn;
    default: return nullptr;
  }
}

#if HRW_PROBE_X86
template <int C> struct MulAvx512 { static constexpr ProbeFn fn = mul_avx512<C>; };
template <int C> struct MulAvx2 { static constexpr ProbeFn fn = mul_avx2<C>; };
template <int C> struct PairAvx512 { static constexpr ProbeFn fn = pair_avx512<C>; };
template <int C> struct PairAvx2 { static constexpr ProbeFn fn = pair_avx2<C>; };
#endif
#if HRW_PROBE_NEON
template <int C> struct MulNeon { static constexpr ProbeFn fn = mul_neon<C>; };
template <int C> struct PairNeon { static constexpr ProbeFn fn = pair_neon<C>; };
#endif

ProbeFn probe(ProbeIsa isa, bool pair, int chains) {
  if (!cpu_runs(isa))
    throw std::invalid_argument(std::string("op-bound probe: this CPU or build has no ") + probe_isa_name(isa));
  ProbeFn fn = nullptr;
  switch (isa) {
#if HRW_PROBE_X86
    case ProbeIsa::avx512: fn = pair ? by_chains<PairAvx512>(chains) : by_chains<MulAvx512>(chains); break;
    case ProbeIsa::avx2: fn = pair ? by_chains<PairAvx2>(chains) : by_chains<MulAvx2>(chains); break;
#endif
#if HRW_PROBE_NEON
    case ProbeIsa::neon: fn = pair ? by_chains<PairNeon>(chains) : by_chains<MulNeon>(chains); break;
#endif
    default: break;
  }
  if (!fn) throw std::invalid_argument("op-bound probe: no probe for " + std::to_string(chains) + " chains");
  return fn;
}

}  // namespace

const char* probe_isa_name(ProbeIsa isa) {
  switch (isa) {
    case ProbeIsa::avx512: return "AVX512";
    case ProbeIsa::avx2: return "AVX2";
    case ProbeIsa::neon: return "NEON";
  }
  return "?";
}

unsigned probe_lanes(ProbeIsa isa) {
  switch (isa) {
    case ProbeIsa::avx512: return 16;
    case ProbeIsa::avx2: return 8;
    case ProbeIsa::neon: return 4;
  }
  return 0;
}

std::vector<ProbeIsa> runnable_probe_isas() {
  std::vector<ProbeIsa> out;
  for (ProbeIsa isa : {ProbeIsa::avx512, ProbeIsa::avx2, ProbeIsa::neon})
    if (cpu_runs(isa)) out.push_back(isa);
  return out;
}

std::uint32_t run_mul_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed) {
  return probe(isa, false, chains)(calls, seed);
}

std::uint32_t run_pair_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed) {
  return probe(isa, true, chains)(calls, seed);
}

}  // namespace hrw::bench
