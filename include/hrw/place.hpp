// hrw place: the owner (or replicas) of every key of a stream, and per-node accounting.
// The rows and reports are written by the output layer (hrw/output.hpp).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hrw/bulk.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/placement.hpp"
#include "hrw/progress.hpp"

namespace hrw {

// hrw place's per-node accounting. Keys, bytes and requests are counted for the owner
// (rank 1), so the node totals equal what was read; with R > 1 each node's replica slots
// (keys it holds at any rank) are counted too.
class PlaceStats {
 public:
  PlaceStats(const ClusterView& view, std::uint32_t replicas);
  void add(const KeyChunk& chunk, const Placement& placement);
  // Another part's counts (a placement computed in parts, docs/python.md): same view size
  // and replica count, or InputError; checked sums.
  void add(const PlaceStats& part);
  // Counts set whole: what parse_place_stats_json rebuilds. owned and slots: one per node.
  void set_counts(std::vector<LoadCounts> owned, std::vector<LoadCounts> slots, LoadCounts read,
                  std::uint64_t partial_keys, std::uint64_t overflow_keys);

  const ClusterView& view() const { return *view_; }
  std::uint32_t replicas() const { return replicas_; }
  const std::vector<LoadCounts>& owned() const { return owned_; }
  // R > 1, per node: the keys it holds a replica of at any rank, with their bytes and
  // requests (its disk fill); owned() counts rank 1 only.
  const std::vector<LoadCounts>& slots() const { return slots_; }
  // What node n holds, its fill: the keys (bytes, requests) of every replica it has; R = 1
  // its owned() keys.
  const LoadCounts& held(std::uint32_t n) const { return replicas_ == 1 ? owned_[n] : slots_[n]; }
  const LoadCounts& read() const { return read_; }
  std::uint64_t partial_keys() const { return partial_keys_; }
  // Contract §9: keys placed on a node whose cut they do not clear (0 without cuts).
  std::uint64_t overflow_keys() const { return overflow_keys_; }
  // Node i's share of the keys divided by its target share (ClusterView::share); the peak
  // over nodes is the "peak-to-mean" (for an unweighted view: max keys / mean keys).
  double share_ratio(std::uint32_t node) const;
  double peak_to_mean() const;

 private:
  const ClusterView* view_;
  std::uint32_t replicas_;
  std::vector<LoadCounts> owned_;
  std::vector<LoadCounts> slots_;
  LoadCounts read_;
  std::uint64_t partial_keys_ = 0;
  std::uint64_t overflow_keys_ = 0;
};

struct PlaceJob {
  KeyInput keys;
  PlaceOptions place;
  std::string out = "-";  // empty: no placement written (the stats alone)
  std::string stats;  // JSON stats file; empty: none
  ProgressCallback progress;  // may be empty
};
// Streams the placement to job.out; returns the stats (printed by the caller).
PlaceStats run_place(const ClusterView& view, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests);
// The same for a request a front end validated already; job.place is not read.
PlaceStats run_place(const ValidRequest& request, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests);

}  // namespace hrw
