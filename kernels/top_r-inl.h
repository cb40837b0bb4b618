// Top-R selection in memory-resident sorted lists, one vector per rank.
#if defined(HRW_KERNELS_TOP_R_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef HRW_KERNELS_TOP_R_INL_H_
#undef HRW_KERNELS_TOP_R_INL_H_
#else
#define HRW_KERNELS_TOP_R_INL_H_
#endif

#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace hrw {
namespace kernels {
namespace HWY_NAMESPACE {

namespace hn = hwy::HWY_NAMESPACE;

// Offers candidate (s, ci) to the sorted lists best/idx (kR slots of one vector each, in
// memory: SVE vectors cannot live in arrays). `fill`: slots >= fill are still empty and
// accept unconditionally. kLex: compare (score desc, index asc); otherwise strict Gt
// suffices because the candidate comes later in tie order than everything in the list.
template <size_t kR, bool kLex, class DS, class VS = hn::Vec<DS>>
HWY_INLINE void Insert(DS ds, hn::TFromD<DS>* HWY_RESTRICT best, hn::TFromD<DS>* HWY_RESTRICT idx,
                       VS s, VS ci, size_t fill) {
  const size_t L = hn::Lanes(ds);
  auto beats = [&](size_t j) {
    const VS b = hn::Load(ds, best + j * L);
    if (!kLex) return hn::Gt(s, b);
    const VS bi = hn::Load(ds, idx + j * L);
    return hn::Or(hn::Gt(s, b), hn::And(hn::Eq(s, b), hn::Lt(ci, bi)));
  };
  const auto all = hn::Eq(s, s);
  auto gt_j = (kR - 1 >= fill) ? all : beats(kR - 1);
  if (fill >= kR && hn::AllFalse(ds, gt_j)) return;
  for (size_t j = kR - 1; j >= 1; --j) {
    const auto gt_prev = (j - 1 >= fill) ? all : beats(j - 1);
    const VS bp = hn::Load(ds, best + (j - 1) * L);
    const VS ip = hn::Load(ds, idx + (j - 1) * L);
    const VS bj = hn::Load(ds, best + j * L);
    const VS ij = hn::Load(ds, idx + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, bp, s), bj), ds, best + j * L);
    hn::Store(hn::IfThenElse(gt_j, hn::IfThenElse(gt_prev, ip, ci), ij), ds, idx + j * L);
    gt_j = gt_prev;
  }
  const VS b0 = hn::Load(ds, best);
  const VS i0 = hn::Load(ds, idx);
  hn::Store(hn::IfThenElse(gt_j, s, b0), ds, best);
  hn::Store(hn::IfThenElse(gt_j, ci, i0), ds, idx);
}

}  // namespace HWY_NAMESPACE
}  // namespace kernels
}  // namespace hrw
HWY_AFTER_NAMESPACE();

#endif  // include guard (per target)
