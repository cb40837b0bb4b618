// The kernel layer's side of the targets API (src/core/targets.cpp holds the API itself):
// the compiled-target mask (HWY_TARGETS) read in a Highway translation unit built with the
// same flags as the kernel units, the detected targets (kernels/cpu_targets.cc), and the
// chosen target every dispatch table is indexed by (kernels/dispatch.hpp). TargetImpl is
// dispatched exactly as the kernels are.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "targets.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "dispatch.hpp"
#include "kernel_api.hpp"
#include "target_switch.hpp"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

int64_t TargetImpl() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw {
namespace kernels {

HRW_EXPORT(TargetImpl);

std::int64_t dispatched_target() { return HRW_DYNAMIC_DISPATCH(TargetImpl)(); }

std::int64_t compiled_target_mask() { return HWY_TARGETS; }

std::int64_t detected_target_mask() {
  static const std::int64_t detected = detect_cpu_targets();
  return detected;
}

hwy::ChosenTarget& chosen_target() {
  // Set on first use (a function-local static: thread-safe, and no static initialisation
  // order to depend on), from then on switched only by dispatch_to.
  struct Detected {
    hwy::ChosenTarget target;
    Detected() { target.Update(detected_target_mask()); }
  };
  static Detected chosen;
  return chosen.target;
}

// ChosenTarget::Update keeps the targets of `mask` (the best compiled one is dispatched to)
// and always adds SCALAR, the tables' fallback entry.
void dispatch_to(std::int64_t mask) { chosen_target().Update(mask); }

const char* target_name(std::int64_t bit) { return hwy::TargetName(bit); }

}  // namespace kernels
}  // namespace hrw
#endif  // HWY_ONCE
