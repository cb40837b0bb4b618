// The SIMD targets compiled into the kernels, and the public switch that forces one.
// Like simdjson's implementations: tests, `hrw verify` and benchmarks force every target
// in turn; users may pin one, in code or with HRW_TARGET. Names are Highway's (AVX3, AVX2,
// SSE4, NEON, SVE2, ...). Every target places every key the same (docs/placement-contract.md
// §4); forcing one changes the speed, never a result. docs/api.md, "Targets".
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
// Forces the kernels onto one target (0 restores run-time detection); std::invalid_argument
// when `bits` is not one runnable target. The choice is held by hrw (an atomic), may be
// made from any thread, and takes effect for the next kernel call: a batch running at that
// moment may finish on either target.
void force_target(std::int64_t bits);
// The target the next place() call will use.
SimdTarget active_target();
// The bits last forced (0: run-time detection), by force_target or HRW_TARGET.
std::int64_t forced_target();

// The environment variable the library reads (as simdjson reads
// SIMDJSON_FORCE_IMPLEMENTATION): a target name as force_target(name) takes it.
inline constexpr const char* kTargetEnvironment = "HRW_TARGET";
// Applies HRW_TARGET once per process, unless force_target was called before (an explicit
// choice wins). Called by the first BatchPlacer and by every function of this header but
// force_target, so a program need not call it; a front end calls it early to report a bad
// value before any work. InputError "HRW_TARGET: unknown SIMD target ..." (the messages of
// force_target(name)), again on every call, while the value is bad and nothing was forced.
void apply_target_environment();

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
