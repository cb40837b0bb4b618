// The kernel layer's side of the targets API (src/core/targets.cpp holds the API itself):
// the compiled-target mask (HWY_TARGETS) read in a Highway translation unit built with the
// same flags as the kernel units, run-time detection, and the switch of Highway's dispatch
// table. TargetImpl is dispatched exactly as the kernels are.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "targets.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

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

HWY_EXPORT(TargetImpl);

std::int64_t dispatched_target() { return HWY_DYNAMIC_DISPATCH(TargetImpl)(); }

std::int64_t compiled_target_mask() { return HWY_TARGETS; }

std::int64_t detected_target_mask() {
  // Highway 1.0.3 on Arm: SupportedTargets() resets the chosen target (dropping SVE_256 /
  // SVE2_128); re-apply it. Detected once, before anything is forced.
  static const std::int64_t detected = [] {
    const std::int64_t s = hwy::SupportedTargets();
    hwy::GetChosenTarget().Update(s);
    return s;
  }();
  return detected;
}

// ChosenTarget::Update is Highway's own dispatch switch (the first HWY_DYNAMIC_DISPATCH
// calls it with SupportedTargets()); SCALAR is always added as the fallback entry.
void dispatch_to(std::int64_t mask) { hwy::GetChosenTarget().Update(mask); }

const char* target_name(std::int64_t bit) { return hwy::TargetName(bit); }

}  // namespace kernels
}  // namespace hrw
#endif  // HWY_ONCE
