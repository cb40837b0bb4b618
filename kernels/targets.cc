// include/hrw/targets.hpp and kernels::dispatched_target. The compiled-target mask
// (HWY_TARGETS) is read here, in a Highway translation unit built with the same flags as
// the kernel units (kernels/*.cc), and TargetImpl is dispatched exactly as they are.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "targets.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "kernel_api.hpp"

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
#include "hrw/targets.hpp"

#include <stdexcept>

namespace hrw {
namespace kernels {

HWY_EXPORT(TargetImpl);

std::int64_t dispatched_target() { return HWY_DYNAMIC_DISPATCH(TargetImpl)(); }

}  // namespace kernels

namespace {

std::vector<SimdTarget> targets_of(std::int64_t mask) {
  std::vector<SimdTarget> out;
  // Highway numbers better targets with lower bits: ascending bits = best first.
  for (std::int64_t m = mask; m != 0; m &= m - 1) {
    const std::int64_t bit = m & -m;
    out.push_back(SimdTarget{bit, hwy::TargetName(bit)});
  }
  return out;
}

// Highway 1.0.3 on Arm: SupportedTargets() resets the chosen target (dropping SVE_256 /
// SVE2_128); re-apply it after every call.
std::int64_t supported() {
  const std::int64_t s = hwy::SupportedTargets();
  hwy::GetChosenTarget().Update(s);
  return s;
}

}  // namespace

std::vector<SimdTarget> compiled_targets() { return targets_of(HWY_TARGETS); }

std::vector<SimdTarget> runnable_targets() {
  // With a forced target SupportedTargets() reports only it: detect with the mock off.
  static const std::int64_t detected = [] {
    return supported();
  }();
  return targets_of(detected & HWY_TARGETS);
}

namespace {
std::int64_t g_forced_bits = 0;
}  // namespace

std::int64_t forced_target() { return g_forced_bits; }

void force_target(std::int64_t bits) {
  if (bits != 0) {
    bool ok = false;
    for (const SimdTarget& t : runnable_targets()) ok = ok || t.bits == bits;
    if (!ok)
      throw std::invalid_argument("force_target: target " + std::to_string(bits) +
                                  " is not compiled in or not supported by this CPU");
  }
  hwy::SetSupportedTargetsForTest(bits);
  supported();
  g_forced_bits = bits;
}

SimdTarget active_target() {
  const std::int64_t bit = kernels::dispatched_target();
  return SimdTarget{bit, hwy::TargetName(bit)};
}

}  // namespace hrw
#endif  // HWY_ONCE
