// The op-mix probes of src/jobs/bench/op_bounds.hpp (mulbound, pairbound) as a kernel entry
// point (kernels/op_probe.cc), in Highway target bits. Internal, like kernel_api.hpp.
#pragma once
#include <cstdint>

namespace hrw::kernels {

enum class OpProbe : int {
  mul,   // one lane multiply (mullo by the FNV prime) per chain and step
  pair,  // the op mix of one unweighted fnv1a-fmix pair per lane, chain and step
};

// Vector steps per chain in one call.
inline constexpr int kOpProbeInner = 4096;

// Whether `target` (one Highway target bit) has a probe compiled in this build; whether the
// CPU runs it is the caller's question (detected_target_mask()).
bool op_probe_compiled(std::int64_t target);
// `calls` calls of kOpProbeInner steps of `probe` on `chains` (4, 8 or 12) independent
// accumulators, on `target` itself whatever target the kernels dispatch to now; returns a
// checksum of the accumulators. Preconditions: op_probe_compiled(target), the CPU runs
// `target`, chains is 4, 8 or 12 (0 is returned otherwise).
std::uint32_t run_op_probe(std::int64_t target, OpProbe probe, int chains, std::int64_t calls,
                           std::uint32_t seed);

}  // namespace hrw::kernels
