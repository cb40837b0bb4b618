// This machine's bounds, for stating the kernels' speed as a fraction of them: chain-free
// loops of 32-bit lane multiplies (mulbound) and of the op mix of one unweighted fnv1a-fmix
// pair (pairbound), on independent accumulators, nothing else (no loads, no trie control,
// no key hashing). One copy, run by hrw_bench (bench/mulbound.cpp) and by `hrw bench`
// (docs/bench.md).
#pragma once
#include <cstdint>
#include <vector>

namespace hrw::bench {

// The vectors the probes are stated for: x86 AVX-512 and AVX2, aarch64 NEON; each runs as
// that Highway target of the one source kernels/op_probe.cc (AVX3, AVX2, NEON), when this
// build has it and the CPU runs it, whatever target the kernels are forced to.
enum class ProbeIsa { avx512, avx2, neon };

const char* probe_isa_name(ProbeIsa isa);  // "AVX512", "AVX2", "NEON"
unsigned probe_lanes(ProbeIsa isa);        // 32-bit lanes per vector: 16, 8, 4
// Those this build has probes for and this CPU runs, widest first.
std::vector<ProbeIsa> runnable_probe_isas();

// The chain counts the probes are compiled for.
inline constexpr int kProbeChains[] = {4, 8, 12};
// Vector steps per chain in one call.
inline constexpr int kProbeInner = 4096;
// Items one call of either probe does: lane-multiplies (mulbound) or pair-scores (pairbound).
inline std::uint64_t probe_items_per_call(ProbeIsa isa, int chains) {
  return static_cast<std::uint64_t>(kProbeInner) * static_cast<std::uint64_t>(chains) * probe_lanes(isa);
}

// `calls` calls of kProbeInner multiplies (by the FNV prime) on each of `chains` accumulators;
// returns a checksum of the accumulators so nothing is optimised away. `chains` is one of
// kProbeChains; std::invalid_argument otherwise, or when the CPU cannot run `isa`.
std::uint32_t run_mul_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed);
// The same with the op mix of one pair per lane and step: one FNV byte step (xor, mul),
// fmix32 (3 shifts, 3 xors, 2 muls; the last xor fused with the sign flip that makes the
// signed compare unsigned, as the unweighted kernel does), the compare with the running
// best, two masked moves (score, node index).
std::uint32_t run_pair_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed);

}  // namespace hrw::bench
