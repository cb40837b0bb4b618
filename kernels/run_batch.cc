// kernels::run_batch: one view's owners or top-R per key (kernel_api.hpp), one Highway
// source for every target (foreach_target.h), picked at run time (dispatch.hpp).
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "run_batch.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "dispatch.hpp"
#include "runner-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

size_t RunBatchImpl(const KernelPlan& plan, const uint32_t* states, size_t n,
                    const KernelOutput& out) {
  return RunPlan<1>(plan, states, n, &out);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw::kernels {

HRW_EXPORT(RunBatchImpl);

std::size_t run_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
                      const KernelOutput& out) {
  return HRW_DYNAMIC_DISPATCH(RunBatchImpl)(plan, states, n, out);
}

}  // namespace hrw::kernels
#endif  // HWY_ONCE
