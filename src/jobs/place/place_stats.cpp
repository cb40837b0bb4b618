#include <algorithm>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/place.hpp"

namespace hrw {

PlaceStats::PlaceStats(const ClusterView& view, std::uint32_t replicas)
    : view_(&view), replicas_(replicas), owned_(view.size()), slots_(view.size()) {}

void PlaceStats::add(const KeyChunk& chunk, const Placement& placement) {
  overflow_keys_ += placement.overflow;
  if (replicas_ == 1 && chunk.bytes.empty() && chunk.requests.empty()) {
    // Keys only, one owner each (the common case): one count per key, unchecked, as a
    // count of keys read can never reach 2^64; the total is added checked.
    for (std::size_t i = 0; i < chunk.size(); ++i) ++owned_[placement.owner(i)].keys;
    add_checked(read_.keys, chunk.size(), "keys");
    return;
  }
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
        slots_[n].add(chunk, i);
    }
    partial_keys_ += partial;
  }
}

void PlaceStats::add(const PlaceStats& part) {
  if (part.owned_.size() != owned_.size() || part.replicas_ != replicas_)
    throw InputError(fmt::format("placement part: {} nodes and {} replicas, not {} and {}", part.owned_.size(),
                                 part.replicas_, owned_.size(), replicas_));
  read_ += part.read_;
  add_checked(partial_keys_, part.partial_keys_, "partial keys");
  add_checked(overflow_keys_, part.overflow_keys_, "overflow keys");
  for (std::size_t n = 0; n < owned_.size(); ++n) {
    owned_[n] += part.owned_[n];
    slots_[n] += part.slots_[n];
  }
}

void PlaceStats::set_counts(std::vector<LoadCounts> owned, std::vector<LoadCounts> slots, LoadCounts read,
                            std::uint64_t partial_keys, std::uint64_t overflow_keys) {
  if (owned.size() != owned_.size() || slots.size() != slots_.size())
    throw InputError(fmt::format("placement part: counts for {} nodes, the view has {}", owned.size(),
                                 owned_.size()));
  owned_ = std::move(owned);
  slots_ = std::move(slots);
  read_ = read;
  partial_keys_ = partial_keys;
  overflow_keys_ = overflow_keys;
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
