// The bulk pipeline's wiring (private to the jobs layer; tests reach it through
// hrw_internal): KeySource chunks -> BatchPlacer (for one or more views) -> the command's
// digest (parallel) and consume (in input order) steps. `hrw place` and `hrw plan` are two
// users of this one path. The public part (KeyInput, LoadCounts) is hrw/bulk.hpp.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "hrw/bulk.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"

namespace hrw {

struct StreamOptions {
  std::size_t chunk_keys = kDefaultChunkKeys;
  // A regular file read on several threads is read in ranges of this many bytes (0: the
  // bytes of chunk_keys keys of 16 bytes), each range one chunk.
  std::uint64_t range_bytes = 0;
};

// A chunk in flight: its keys and its placement in every view. What a command computes
// per chunk lives in the command's own typed state (PerChunk<State>), indexed by `slot`.
struct ChunkWork {
  KeyChunk chunk;
  std::vector<Placement> placements;  // placements[v]: the chunk placed in views[v]
  std::size_t slot = 0;               // which chunk in flight: < the count given to prepare
};

// What a bulk command does with each placed chunk, in two steps.
struct ChunkHandlers {
  // Once, before the first chunk: how many chunks can be in flight at once (so the
  // command can size its per-chunk state). May be empty.
  std::function<void(std::size_t slots)> prepare;
  // Right after placement, on the thread that placed the chunk (its data still in that
  // core's cache), chunks in parallel: work that needs no order, such as formatting
  // rows and counting. May be empty.
  std::function<void(ChunkWork&)> digest;
  // In input order, one chunk at a time: whatever needs the running totals, and where
  // the chunk's output goes (AtomicFile::reserve).
  std::function<void(ChunkWork&)> consume;
  // After consume, chunks in parallel and in any order: copying the chunk's output to
  // the place consume reserved for it (AtomicFile::write_at), so that no one thread
  // writes everything. May be empty.
  std::function<void(ChunkWork&)> write;
};

// A command's typed per-chunk state, one per chunk in flight: what its digest step
// leaves for its consume step. Slots are reused, so a State must be reset by whoever
// fills it.
template <class State>
class PerChunk {
 public:
  void resize(std::size_t slots) { states_.resize(slots); }
  State& operator[](const ChunkWork& work) { return states_[work.slot]; }

 private:
  std::vector<State> states_;
};

// Reads, places, digests and consumes chunk by chunk as a oneTBB pipeline. A whole regular
// file is read in byte ranges, each thread reading, placing and digesting its own range
// (io/key_ranges.hpp); stdin, pipes and FIFOs are read by one thread while the others place
// (and digest) the chunks it has read. Either way the chunks are consumed in input order
// with the keys, sums and first error of a one-thread read, then written (the write step)
// in parallel. Memory: two chunks per thread, whatever the input. threads == 1 runs
// everything on the calling thread, one chunk after another.
// One request per view (each its view's options); the first one's threads are used.
void stream_placements(KeySource& source, const std::vector<ValidRequest>& requests,
                       const StreamOptions& options, const ChunkHandlers& handlers);

}  // namespace hrw
