// The SIMD targets compiled into the kernels, and the public switch that forces one.
// Like simdjson's implementations: tests, `hrw verify` and benchmarks force every target
// in turn; users may pin one. Names are Highway's (AVX3, AVX2, SSE4, NEON, SVE2, ...).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
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
// The bits last given to force_target (0: run-time detection).
std::int64_t forced_target();

// Forces the target called `name` (Highway's names, any case: "AVX2", "avx3", "NEON",
// "SVE2"); "" or "auto" restores run-time detection. InputError when no compiled target has
// that name, or when this CPU cannot run it; both messages list the valid names. Returns
// the target now active.
SimdTarget force_target(std::string_view name);

// Forces a target for a scope and restores whatever was forced before (nesting works), also
// when the scope is left by an exception. Not thread-safe, like force_target.
class ScopedTarget {
 public:
  explicit ScopedTarget(std::int64_t bits);
  explicit ScopedTarget(std::string_view name);
  ~ScopedTarget();
  ScopedTarget(const ScopedTarget&) = delete;
  ScopedTarget& operator=(const ScopedTarget&) = delete;

 private:
  std::int64_t previous_;
};

}  // namespace hrw
