// kernels::run_pair_batch: a plan's two views in one walk of their union trie per key
// (kernel_api.hpp): one FNV-1a/fmix32 per union node, a selection per view only where the
// views differ. One Highway source for every target, picked at run time.
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "pair_batch.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

#include "dispatch.hpp"
#include "runner-inl.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

size_t RunPairBatchImpl(const KernelPlan& plan, const uint32_t* states, size_t n,
                        const KernelOutput* out) {
  return RunPlan<3>(plan, states, n, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace hrw::kernels {

HRW_EXPORT(RunPairBatchImpl);

std::size_t run_pair_batch(const KernelPlan& plan, const std::uint32_t* states, std::size_t n,
                           const KernelOutput out[2]) {
  return HRW_DYNAMIC_DISPATCH(RunPairBatchImpl)(plan, states, n, out);
}

}  // namespace hrw::kernels
#endif  // HWY_ONCE
