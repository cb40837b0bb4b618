#include <algorithm>

#include "hrw/place.hpp"

namespace hrw {

PlaceStats::PlaceStats(const ClusterView& view, std::uint32_t replicas)
    : view_(&view), replicas_(replicas), owned_(view.size()), slots_(view.size()) {}

void PlaceStats::add(const KeyChunk& chunk, const Placement& placement) {
  overflow_keys_ += placement.overflow;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    read_.add(chunk, i);
    owned_[placement.owner(i)].add(chunk, i);
    if (replicas_ == 1) continue;
    bool partial = false;
    for (std::uint32_t r = 0; r < replicas_; ++r) {
      const std::uint32_t n = placement.node(i, r);
      if (n == kNoNode)
        partial = true;
      else
        ++slots_[n];
    }
    partial_keys_ += partial;
  }
}

double PlaceStats::share_ratio(std::uint32_t node) const {
  if (read_.keys == 0) return 0.0;
  const double share = static_cast<double>(owned_[node].keys) / static_cast<double>(read_.keys);
  return share / view_->share(node);
}

double PlaceStats::peak_to_mean() const {
  double peak = 0;
  for (std::uint32_t n = 0; n < view_->size(); ++n) peak = std::max(peak, share_ratio(n));
  return peak;
}

}  // namespace hrw
