// Compiles one view, or the two views of a plan, for the kernels (kernel_api.hpp): the one
// place where a ClusterView becomes a KernelPlan (BatchPlacer and the benchmarks use it).
#pragma once
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/placement.hpp"
#include "kernel_api.hpp"

namespace hrw::kernels {

// Whether two views can share one walk of their union trie: the same seed (the key states
// are shared), hash mode and rank rule (both weighted or both not). Views with
// hierarchies (contract §6) will need the same hierarchy too.
bool can_fuse(const ClusterView& a, const ClusterView& b);

// Fills a weighted side's weight_class and class_weights from its weights (kernel_api.hpp):
// the distinct weights in order, cut into at most kMaxWeightClasses runs of about equal
// length; a class gates with its largest weight.
void assign_weight_classes(KernelView& side);

// Fills view 0's class_first once the program's leaves have their lists: each class's
// first leaf in list 0 (the kernels rank list 0 by class), kAbsent where there is none.
void assign_class_first(KernelPlan& plan);

// `views`: one view, or two that can_fuse. The options are the (validated) request;
// options.replicas <= kMaxKernelReplicas.
KernelPlan compile_plan(const std::vector<const ClusterView*>& views, const PlaceOptions& options);

}  // namespace hrw::kernels
