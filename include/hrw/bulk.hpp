// Bulk placement of a streamed keyspace: KeySource chunks -> BatchPlacer (for one or more
// views) -> the command's digest (parallel) and consume (in input order) steps. `hrw place`
// and `hrw plan` are two users of this one path.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"

namespace hrw {

// Where a stream's time goes, for benchmarks (hrw plan --stage-times): nanoseconds spent
// in each step, summed over chunks and threads, and the pipeline's wall time.
struct StageTimes {
  std::atomic<std::uint64_t> read{0}, place{0}, digest{0}, consume{0}, wall{0};
};

struct StreamOptions {
  PlaceOptions place;
  std::size_t chunk_keys = kDefaultChunkKeys;
  StageTimes* times = nullptr;  // filled when not null
};

// A chunk in flight: its keys, its placement in every view, and scratch that the
// command's digest step fills for its consume step.
struct ChunkWork {
  KeyChunk chunk;
  std::vector<Placement> placements;  // placements[v]: the chunk placed in views[v]
  std::string text;                   // output rows
  std::vector<std::uint64_t> counts;  // per-node counters
  std::vector<std::uint32_t> marks;   // indices into the chunk (e.g. the keys that move)
};

// What a bulk command does with each placed chunk, in two steps.
struct ChunkHandlers {
  // Right after placement, on the thread that placed the chunk (its data still in that
  // core's cache), chunks in parallel: work that needs no order, such as formatting
  // rows and counting. May be empty.
  std::function<void(ChunkWork&)> digest;
  // In input order, one chunk at a time: writing and whatever needs the running totals.
  std::function<void(ChunkWork&)> consume;
};

// Reads, places, digests and consumes chunk by chunk as a oneTBB pipeline: the threads
// place (and digest) different chunks while one of them reads the next, so the kernels
// are not idle while the input is parsed. Memory: two chunks per thread, whatever the
// input. threads == 1 runs everything on the calling thread, one chunk after another.
void stream_placements(KeySource& source, const std::vector<const ClusterView*>& views,
                       const StreamOptions& options, const ChunkHandlers& handlers);

// Keys, bytes and requests added up: what reports count per node.
struct LoadCounts {
  std::uint64_t keys = 0;
  std::uint64_t bytes = 0;
  std::uint64_t requests = 0;

  void add(const KeyChunk& chunk, std::size_t i) {
    keys += 1;
    bytes += chunk.bytes_of(i);
    requests += chunk.requests_of(i);
  }
  LoadCounts& operator+=(const LoadCounts& o) {
    keys += o.keys, bytes += o.bytes, requests += o.requests;
    return *this;
  }
  bool operator==(const LoadCounts&) const = default;
};

// hrw place's per-node accounting. Keys, bytes and requests are counted for the owner
// (rank 1), so the node totals equal what was read; with R > 1 each node's replica slots
// (keys it holds at any rank) are counted too.
class PlaceStats {
 public:
  PlaceStats(const ClusterView& view, std::uint32_t replicas);
  void add(const KeyChunk& chunk, const Placement& placement);

  const ClusterView& view() const { return *view_; }
  std::uint32_t replicas() const { return replicas_; }
  const std::vector<LoadCounts>& owned() const { return owned_; }
  const std::vector<std::uint64_t>& slots() const { return slots_; }
  const LoadCounts& read() const { return read_; }
  std::uint64_t partial_keys() const { return partial_keys_; }
  // Node i's share of the keys divided by its target share (ClusterView::share); the peak
  // over nodes is the "peak-to-mean" (for an unweighted view: max keys / mean keys).
  double share_ratio(std::uint32_t node) const;
  double peak_to_mean() const;

  std::string to_json(bool with_bytes, bool with_requests) const;
  std::string table(bool with_bytes, bool with_requests) const;

 private:
  const ClusterView* view_;
  std::uint32_t replicas_;
  std::vector<LoadCounts> owned_;
  std::vector<std::uint64_t> slots_;
  LoadCounts read_;
  std::uint64_t partial_keys_ = 0;
};

// The CSV rows of `hrw place` (header: key,owner or key,replica_1..replica_R; a partial
// result leaves its missing replicas empty). Node ids are quoted once, up front.
class PlacementCsv {
 public:
  PlacementCsv(const ClusterView& view, std::uint32_t replicas);
  std::string header() const;
  void append_rows(std::string& out, const KeyChunk& chunk, const Placement& placement) const;

 private:
  std::uint32_t replicas_;
  std::vector<std::string> ids_;  // CSV-ready
};

}  // namespace hrw
