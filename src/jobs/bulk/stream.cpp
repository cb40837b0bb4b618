// The one bulk path: read -> place (every view) -> digest -> consume, as a oneTBB pipeline.
#include <algorithm>
#include <atomic>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "hrw/bulk.hpp"
#include "bulk/stream.hpp"
#include "key_ranges.hpp"

namespace hrw {

namespace {

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

  bool read(ChunkWork& work) {
    return source.next(work.chunk, chunk_keys);
  }
  void place_and_digest(ChunkWork& work) const {
    placers.place(work.chunk.keys, work.placements);
    if (handlers.digest) handlers.digest(work);
  }
  void consume(ChunkWork& work) const {
    handlers.consume(work);
  }
  void write(ChunkWork& work) const {
    if (handlers.write) handlers.write(work);
  }
};

void stream_serially(Stream& s) {
  if (s.handlers.prepare) s.handlers.prepare(1);
  ChunkWork work;
  while (s.read(work)) {
    s.place_and_digest(work);
    s.consume(work);
    s.write(work);
  }
}

// The chunks in flight, and which are free: a chunk is taken by the first stage and given
// back by the last, which runs in parallel (writes finish in any order), so slots are
// reused as they come back, not in turn. Two chunks per thread in flight (one being
// placed, one being read, consumed or written), and one more slot than tokens so that a
// token never waits for one. A thread takes the free slot it used last when there is one
// (oneTBB carries an item from the first stage on through the parallel one on the same
// thread): the slot's buffers are then still in that core's cache, where another core
// would first have to fetch every line it writes.
class Slots {
 public:
  explicit Slots(std::size_t threads) : tokens_(2 * threads), work_(tokens_ + 1), last_user_(work_.size(), -1) {
    for (std::size_t i = 0; i < work_.size(); ++i) {
      work_[i].slot = i;
      free_.push_back(i);
    }
  }
  std::size_t tokens() const { return tokens_; }
  std::size_t size() const { return work_.size(); }
  ChunkWork& take() {
    const int thread = tbb::this_task_arena::current_thread_index();
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.empty()) throw std::logic_error("bulk pipeline: more chunks in flight than slots");
    auto it = std::find_if(free_.rbegin(), free_.rend(), [&](std::size_t i) { return last_user_[i] == thread; });
    if (it == free_.rend()) it = free_.rbegin();
    const std::size_t i = *it;
    free_.erase(std::next(it).base());
    last_user_[i] = thread;
    return work_[i];
  }
  void give_back(const ChunkWork& work) {
    std::lock_guard<std::mutex> lock(mutex_);
    free_.push_back(work.slot);
  }

 private:
  std::size_t tokens_;
  std::vector<ChunkWork> work_;
  std::mutex mutex_;
  std::vector<std::size_t> free_;  // most recently given back last
  std::vector<int> last_user_;     // per slot: the arena thread index that took it last
};

// Each chunk is placed by one thread (no nested parallel_for): threads work on different
// chunks, which needs no synchronisation inside a chunk and keeps every thread busy while
// one of them reads.
void stream_pipelined(Stream& s, Slots& slots) {
  tbb::parallel_pipeline(
      slots.tokens(),
      tbb::make_filter<void, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> ChunkWork* {
                                           ChunkWork& work = slots.take();
                                           if (!s.read(work)) {
                                             slots.give_back(work);
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
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                                   [&](ChunkWork* work) {
                                                     s.consume(*work);
                                                     return work;
                                                   }) &
          tbb::make_filter<ChunkWork*, void>(tbb::filter_mode::parallel, [&](ChunkWork* work) {
            s.write(*work);
            slots.give_back(*work);
          }));
}

// A chunk in flight when a regular file is read in ranges: its range and what reading it
// found.
struct RangeWork {
  ChunkWork* work = nullptr;
  std::size_t range = 0;
  io::RangeRead read;
  bool taken = false;  // consumed: its output is to be written
};

// Each thread reads, places and digests its own range (the serial first stage only hands
// out range numbers). The in-order stage takes the ranges one after another; at the first
// that failed to parse or whose sums overflow it stops the ranges (later ones in flight
// are dropped unconsumed) and returns that range, from which the caller reads on
// serially, so the output and the first error are those of a one-thread read. Returns
// ranges.count() when every range was taken.
std::size_t stream_ranges(Stream& s, io::KeyRanges& ranges, Slots& slots) {
  std::vector<RangeWork> in_flight(slots.size());
  std::size_t next = 0;
  std::atomic<bool> stopped{false};
  std::size_t resume_at = ranges.count();
  tbb::parallel_pipeline(
      slots.tokens(),
      tbb::make_filter<void, RangeWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> RangeWork* {
                                           if (next == ranges.count() || stopped.load()) {
                                             fc.stop();
                                             return nullptr;
                                           }
                                           ChunkWork& work = slots.take();
                                           RangeWork& r = in_flight[work.slot];
                                           r.work = &work;
                                           r.range = next++;
                                           r.taken = false;
                                           return &r;
                                         }) &
          tbb::make_filter<RangeWork*, RangeWork*>(
              tbb::filter_mode::parallel,
              [&](RangeWork* r) {
                if (stopped.load()) return r;  // dropped by the in-order stage
                // One reader per thread (its buffer stays in that core's cache); a
                // thread reads one range at a time.
                const int reader = tbb::this_task_arena::current_thread_index();
                r->read = ranges.read(static_cast<std::size_t>(reader), r->range, r->work->chunk);
                if (!r->read.failed && !r->work->chunk.keys.empty()) s.place_and_digest(*r->work);
                return r;
              }) &
          tbb::make_filter<RangeWork*, RangeWork*>(tbb::filter_mode::serial_in_order,
                                                   [&](RangeWork* r) {
                                                     if (stopped.load()) return r;
                                                     if (!ranges.take(r->read, r->work->chunk)) {
                                                       stopped.store(true);
                                                       resume_at = r->range;
                                                       return r;
                                                     }
                                                     r->taken = !r->work->chunk.keys.empty();
                                                     if (r->taken) s.consume(*r->work);
                                                     return r;
                                                   }) &
          tbb::make_filter<RangeWork*, void>(tbb::filter_mode::parallel, [&](RangeWork* r) {
            if (r->taken) s.write(*r->work);
            slots.give_back(*r->work);
          }));
  return resume_at;
}

}  // namespace

void stream_placements(KeySource& source, const std::vector<ValidRequest>& requests,
                       const StreamOptions& options, const ChunkHandlers& handlers) {
  std::vector<ValidRequest> per_chunk;
  for (const ValidRequest& r : requests) per_chunk.push_back(r.with_threads(1));  // the parallelism is across chunks
  Stream s{source, Placers(per_chunk), options.chunk_keys, handlers};
  const unsigned threads = worker_threads(requests.front().options().threads);
  if (threads == 1) return stream_serially(s);
  tbb::task_arena arena(threads == 0 ? tbb::task_arena::automatic : static_cast<int>(threads));
  arena.execute([&] {
    const auto arena_threads = static_cast<std::size_t>(arena.max_concurrency());
    Slots slots(arena_threads);
    if (handlers.prepare) handlers.prepare(slots.size());
    const std::uint64_t range_bytes = options.range_bytes ? options.range_bytes : 16 * options.chunk_keys;
    if (auto ranges = io::KeyRanges::open(source, range_bytes, arena_threads)) {
      const std::size_t resume_at = stream_ranges(s, *ranges, slots);
      ranges->resume(resume_at);
      if (resume_at == ranges->count()) return;
    }
    stream_pipelined(s, slots);
  });
}

}  // namespace hrw
