// The multiply bound of this machine: chain-free loops of 32-bit lane multiplies on
// independent accumulators (AVX-512 / AVX2 vpmulld on x86, vmulq_u32 on aarch64), so the
// kernels can be stated as a fraction of it in the same run. items = lane-multiplies.
#include <cstdint>
#include <string>

#include <benchmark/benchmark.h>

#include "bench.hpp"

#if defined(__x86_64__) || defined(__i386__)
// GCC 12 avx512fintrin.h: _mm512_srli_epi32 and friends read an intentionally undefined
// vector ("__Y is used uninitialized"); a header false positive.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

namespace hrw::bench {
namespace {

constexpr int kInner = 4096;  // vector multiplies per chain per call

template <int Chains>
__attribute__((target("avx512f"), noinline)) std::uint32_t mul_avx512(std::int64_t calls,
                                                                      std::uint32_t seed) {
  __m512i acc[Chains];
  for (int c = 0; c < Chains; ++c)
    acc[c] = _mm512_add_epi32(_mm512_set1_epi32(static_cast<int>(seed) + c),
                              _mm512_set_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0));
  const __m512i prime = _mm512_set1_epi32(0x01000193);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kInner; ++i) {
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
  const __m256i prime = _mm256_set1_epi32(0x01000193);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kInner; ++i) {
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

// The op mix of one unweighted fnv1a-fmix pair, chain-free: one FNV byte step (xor, mul),
// fmix32 (3 shifts, 3 xors, 2 muls), the sign flip, compare, two masked moves (score and
// node index): the best a kernel with 3 multiplies per pair can do on this machine when
// nothing else (loads, loop and trie control, key prefix hashing) costs anything.
// items = pair-scores (16 per chain step).
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
  const __m512i prime = _mm512_set1_epi32(0x01000193);
  const __m512i c1 = _mm512_set1_epi32(static_cast<int>(0x85EBCA6Bu));
  const __m512i c2 = _mm512_set1_epi32(static_cast<int>(0xC2B2AE35u));
  const __m512i sign = _mm512_set1_epi32(INT32_MIN);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kInner; ++i) {
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

template <int Chains>
void register_chains() {
  benchmark::RegisterBenchmark(
      ("pairbound/AVX512/fnv1-fmix-argmax/chains" + std::to_string(Chains)).c_str(),
      [](benchmark::State& st) {
        if (!__builtin_cpu_supports("avx512f")) {
          st.SkipWithError("CPU lacks AVX-512F");
          return;
        }
        for (auto _ : st) benchmark::DoNotOptimize(pair_avx512<Chains>(1, 7));
        st.SetItemsProcessed(st.iterations() * kInner * Chains * 16);
        st.counters["items_per_iteration"] = kInner * Chains * 16;
        st.counters["lane_muls_per_pair"] = 3;
      });
  benchmark::RegisterBenchmark(
      ("mulbound/AVX512/vpmulld/chains" + std::to_string(Chains)).c_str(),
      [](benchmark::State& st) {
        if (!__builtin_cpu_supports("avx512f")) {
          st.SkipWithError("CPU lacks AVX-512F");
          return;
        }
        for (auto _ : st) benchmark::DoNotOptimize(mul_avx512<Chains>(1, 7));
        st.SetItemsProcessed(st.iterations() * kInner * Chains * 16);
        st.counters["items_per_iteration"] = kInner * Chains * 16;
      });
  benchmark::RegisterBenchmark(
      ("mulbound/AVX2/vpmulld/chains" + std::to_string(Chains)).c_str(),
      [](benchmark::State& st) {
        if (!__builtin_cpu_supports("avx2")) {
          st.SkipWithError("CPU lacks AVX2");
          return;
        }
        for (auto _ : st) benchmark::DoNotOptimize(mul_avx2<Chains>(1, 7));
        st.SetItemsProcessed(st.iterations() * kInner * Chains * 8);
        st.counters["items_per_iteration"] = kInner * Chains * 8;
      });
}

}  // namespace

void register_mulbound_benchmarks() {
  register_chains<4>();
  register_chains<8>();
  register_chains<12>();
}

}  // namespace hrw::bench

#elif defined(__aarch64__)
#include <arm_neon.h>

namespace hrw::bench {
namespace {

constexpr int kInner = 4096;

// NEON: 4 lanes per vmulq_u32. Under qemu this measures the emulator, not a CPU.
template <int Chains>
__attribute__((noinline)) std::uint32_t mul_neon(std::int64_t calls, std::uint32_t seed) {
  uint32x4_t acc[Chains];
  const uint32_t init[4] = {0, 1, 2, 3};
  for (int c = 0; c < Chains; ++c)
    acc[c] = vaddq_u32(vdupq_n_u32(seed + c), vld1q_u32(init));
  const uint32x4_t prime = vdupq_n_u32(0x01000193u);
  for (std::int64_t call = 0; call < calls; ++call) {
    for (int i = 0; i < kInner; ++i) {
#pragma GCC unroll 16
      for (int c = 0; c < Chains; ++c) acc[c] = vmulq_u32(acc[c], prime);
    }
    for (int c = 0; c < Chains; ++c) asm volatile("" : "+w"(acc[c]));
  }
  uint32x4_t sum = acc[0];
  for (int c = 1; c < Chains; ++c) sum = veorq_u32(sum, acc[c]);
  return vaddvq_u32(sum);
}

template <int Chains>
void register_chains() {
  benchmark::RegisterBenchmark(
      ("mulbound/NEON/mul_u32/chains" + std::to_string(Chains)).c_str(),
      [](benchmark::State& st) {
        for (auto _ : st) benchmark::DoNotOptimize(mul_neon<Chains>(1, 7));
        st.SetItemsProcessed(st.iterations() * kInner * Chains * 4);
        st.counters["items_per_iteration"] = kInner * Chains * 4;
      });
}

}  // namespace

void register_mulbound_benchmarks() {
  register_chains<4>();
  register_chains<8>();
}

}  // namespace hrw::bench

#else

namespace hrw::bench {
void register_mulbound_benchmarks() {}  // no multiply-bound probe for this architecture
}  // namespace hrw::bench

#endif
