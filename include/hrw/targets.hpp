// The SIMD targets compiled into the kernels, and the public switch that forces one.
// Like simdjson's implementations: tests, `hrw verify` and benchmarks force every target
// in turn; users may pin one. Names are Highway's (AVX3, AVX2, SSE4, NEON, SVE2, ...).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hrw {

struct SimdTarget {
  std::int64_t bits = 0;  // Highway's HWY_* target bit
  std::string name;       // hwy::TargetName(bits)
};

// Targets compiled into the kernel translation unit (as that unit sees HWY_TARGETS).
std::vector<SimdTarget> compiled_targets();
// Those of the compiled targets that this CPU can run, best first.
std::vector<SimdTarget> runnable_targets();
// Forces the kernels onto one target (0 restores run-time detection). Not thread-safe:
// call it between batches, never while place() runs.
void force_target(std::int64_t bits);
// The target the next place() call will use.
SimdTarget active_target();

}  // namespace hrw
