// hrw's run-time dispatch over the per-target functions of a foreach_target.h unit: the
// table of HWY_EXPORT (hwy/highway.h) and the index of Highway's ChosenTarget (header-only,
// hwy/targets.h), but the chosen target and the CPU detection are hrw's own
// (kernels/targets.cc, kernels/cpu_targets.cc). So the kernels need only Highway's headers
// at run time: Debian's libhwy.so.1.0.3 calibrates a benchmark timer when it is loaded,
// milliseconds added to every process's start.
//
// Use as HWY_EXPORT / HWY_DYNAMIC_DISPATCH, inside `#if HWY_ONCE`:
//   HRW_EXPORT(RunBatchImpl);
//   ... HRW_DYNAMIC_DISPATCH(RunBatchImpl)(args) ...
#pragma once
#include <cstdint>

#include "hwy/highway.h"

namespace hrw::kernels {

// The target the kernels run, as a ChosenTarget mask: set from the detected targets at the
// first use, switched by dispatch_to (target_switch.hpp).
hwy::ChosenTarget& chosen_target();

}  // namespace hrw::kernels

#if (HWY_TARGETS & (HWY_TARGETS - 1)) == 0
// One target compiled: a table of one entry and a direct call, as in Highway.
#define HRW_EXPORT(FUNC_NAME) HWY_EXPORT(FUNC_NAME)
#define HRW_DYNAMIC_DISPATCH(FUNC_NAME) HWY_STATIC_DISPATCH(FUNC_NAME)
#else
// HWY_EXPORT's layout (slot 0, one slot per dynamic target, the fallback), so that
// ChosenTarget::GetIndex indexes it. Highway's slot 0 chooses a target on the first call;
// here chosen_target() is set before it is read, and slot 0 (mask 1, never seen) holds the
// fallback.
#define HRW_EXPORT(FUNC_NAME)                                                \
  static decltype(&HWY_STATIC_DISPATCH(FUNC_NAME)) const HWY_DISPATCH_TABLE( \
      FUNC_NAME)[HWY_MAX_DYNAMIC_TARGETS + 2] = {                            \
      HWY_CHOOSE_FALLBACK(FUNC_NAME),                                        \
      HWY_CHOOSE_TARGET_LIST(FUNC_NAME),                                     \
      HWY_CHOOSE_FALLBACK(FUNC_NAME),                                        \
  }
#define HRW_DYNAMIC_DISPATCH(FUNC_NAME) \
  (*(HWY_DISPATCH_TABLE(FUNC_NAME)[::hrw::kernels::chosen_target().GetIndex()]))
#endif
