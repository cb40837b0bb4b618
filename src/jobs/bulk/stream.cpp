// The one bulk path: read -> place (every view) -> digest -> consume, as a oneTBB pipeline.
#include <chrono>
#include <optional>

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "hrw/bulk.hpp"
#include "bulk/stream.hpp"

namespace hrw {

namespace {

// Adds the time until its destruction to a StageTimes counter (nothing when null).
class StageClock {
 public:
  explicit StageClock(std::atomic<std::uint64_t>* total)
      : total_(total), start_(total ? std::chrono::steady_clock::now() : Clock::time_point{}) {}
  ~StageClock() {
    if (total_)
      total_->fetch_add(static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start_).count()));
  }
  StageClock(const StageClock&) = delete;
  StageClock& operator=(const StageClock&) = delete;

 private:
  using Clock = std::chrono::steady_clock;
  std::atomic<std::uint64_t>* total_;
  Clock::time_point start_;
};

std::atomic<std::uint64_t>* stage(StageTimes* times, std::atomic<std::uint64_t> StageTimes::*which) {
  return times ? &(times->*which) : nullptr;
}

// Every view compiled once; two views (a plan) as one PairPlacer, which walks the union
// of their ids once per key when they allow it.
class Placers {
 public:
  explicit Placers(const std::vector<ValidRequest>& requests) {
    if (requests.size() == 2)
      pair_.emplace(requests[0], requests[1]);
    else
      for (const ValidRequest& request : requests) each_.emplace_back(request);
  }
  void place(const KeyBatch& keys, std::vector<Placement>& out) const {
    out.resize(pair_ ? 2 : each_.size());
    if (pair_) return pair_->place(keys, out[0], out[1]);
    for (std::size_t v = 0; v < each_.size(); ++v) each_[v].place(keys, out[v]);
  }

 private:
  std::vector<BatchPlacer> each_;
  std::optional<PairPlacer> pair_;
};

struct Stream {
  KeySource& source;
  Placers placers;
  std::size_t chunk_keys;
  const ChunkHandlers& handlers;
  StageTimes* times;

  bool read(ChunkWork& work) {
    StageClock clock(stage(times, &StageTimes::read));
    return source.next(work.chunk, chunk_keys);
  }
  void place_and_digest(ChunkWork& work) const {
    {
      StageClock clock(stage(times, &StageTimes::place));
      placers.place(work.chunk.keys, work.placements);
    }
    StageClock clock(stage(times, &StageTimes::digest));
    if (handlers.digest) handlers.digest(work);
  }
  void consume(ChunkWork& work) const {
    StageClock clock(stage(times, &StageTimes::consume));
    handlers.consume(work);
  }
};

void stream_serially(Stream& s) {
  if (s.handlers.prepare) s.handlers.prepare(1);
  ChunkWork work;
  while (s.read(work)) {
    s.place_and_digest(work);
    s.consume(work);
  }
}

// Each chunk is placed by one thread (no nested parallel_for): threads work on different
// chunks, which needs no synchronisation inside a chunk and keeps every thread busy while
// one of them reads.
void stream_pipelined(Stream& s, std::size_t threads) {
  // Two chunks per thread in flight: one being placed, one being read or consumed.
  const std::size_t tokens = 2 * threads;
  // Tokens leave the last (in-order) stage in order, so token k may reuse slot k % size
  // once k - tokens has left: one spare slot makes that hold with margin.
  std::vector<ChunkWork> slots(tokens + 1);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i].slot = i;
  if (s.handlers.prepare) s.handlers.prepare(slots.size());
  std::size_t next_slot = 0;
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> ChunkWork* {
                                           ChunkWork& work = slots[next_slot++ % slots.size()];
                                           if (!s.read(work)) {
                                             fc.stop();
                                             return nullptr;
                                           }
                                           return &work;
                                         }) &
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::parallel,
                                                   [&](ChunkWork* work) {
                                                     s.place_and_digest(*work);
                                                     return work;
                                                   }) &
          tbb::make_filter<ChunkWork*, void>(tbb::filter_mode::serial_in_order,
                                             [&](ChunkWork* work) { s.consume(*work); }));
}

}  // namespace

void stream_placements(KeySource& source, const std::vector<ValidRequest>& requests,
                       const StreamOptions& options, const ChunkHandlers& handlers) {
  StageClock wall(stage(options.times, &StageTimes::wall));
  std::vector<ValidRequest> per_chunk;
  for (const ValidRequest& r : requests) per_chunk.push_back(r.with_threads(1));  // the parallelism is across chunks
  Stream s{source, Placers(per_chunk), options.chunk_keys, handlers, options.times};
  const unsigned threads = worker_threads(requests.front().options().threads);
  if (threads == 1) return stream_serially(s);
  tbb::task_arena arena(threads == 0 ? tbb::task_arena::automatic : static_cast<int>(threads));
  arena.execute([&] { stream_pipelined(s, static_cast<std::size_t>(arena.max_concurrency())); });
}

}  // namespace hrw
