// The kernel layer's side of the targets API (src/core/targets.cpp holds the API; kernels/
// targets.cc implements this), in Highway target bits. Internal, like kernel_api.hpp.
#pragma once
#include <cstdint>

namespace hrw::kernels {

// The targets compiled into the kernels (HWY_TARGETS of the kernel units).
std::int64_t compiled_target_mask();
// Those this CPU runs, detected once (detect_cpu_targets()).
std::int64_t detected_target_mask();
// Those this CPU runs, as Highway 1.0.3's hwy::SupportedTargets() reports them, detected
// now (kernels/cpu_targets.cc).
std::int64_t detect_cpu_targets();
// Makes the kernels dispatch to the best target of `mask` (SCALAR is the fallback).
void dispatch_to(std::int64_t mask);
// Highway's name of one target bit ("AVX2").
const char* target_name(std::int64_t bit);
// (dispatched_target(), the bit dispatched to now, is declared in kernel_api.hpp.)

}  // namespace hrw::kernels
