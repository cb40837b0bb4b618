// The one bulk path: read -> place (every view) -> digest -> consume, as a oneTBB pipeline.
#include <algorithm>
#include <chrono>
#include <exception>
#include <memory>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

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

// A regular file read in parallel: split at record starts (split_key_file), each range
// read, placed and digested by one thread, consumed in input order. Errors wait for their
// turn: a range's error is raised when every range before it was consumed, so the first
// error in input order is the one reported.
struct RangeSlot {
  ChunkWork work;
  std::unique_ptr<KeySource> reader;  // opened once per slot, moved from range to range
  ByteRange range;
  std::exception_ptr error;
};

// The error the whole-file reader raises in `range`, counting the bytes/requests totals from
// the keys before it: the range read again alone, with those totals.
[[noreturn]] void raise_first_error(const KeySource& source, ByteRange range, const LoadCounts& before,
                                    const std::exception_ptr& error) {
  range.bytes_before = before.bytes;
  range.requests_before = before.requests;
  KeySource again(source.path(), source.format(), range);
  for (KeyChunk chunk; again.next(chunk, kDefaultChunkKeys);) {
  }
  if (error) std::rethrow_exception(error);
  throw std::logic_error("bulk stream: a range's totals overflowed, but not when read alone");
}

void stream_ranges(Stream& s, std::size_t threads) {
  KeySource& source = s.source;
  // Ranges of about chunk_keys keys of 16 bytes: per-range costs (a seek, a hand-off) vanish
  // and a range's bytes stay in cache from read to digest.
  const std::uint64_t range_bytes = std::max<std::uint64_t>(16 * s.chunk_keys, 16);
  const std::uint64_t size = source.total_bytes().value_or(0);
  std::vector<ByteRange> ranges;
  {
    StageClock clock(stage(s.times, &StageTimes::read));
    ranges = split_key_file(source.path(), source.format(),
                            static_cast<std::size_t>(std::max<std::uint64_t>(size / range_bytes, 1)));
  }
  const std::size_t tokens = 2 * threads;
  std::vector<RangeSlot> slots(tokens + 1);
  for (std::size_t i = 0; i < slots.size(); ++i) slots[i].work.slot = i;
  if (s.handlers.prepare) s.handlers.prepare(slots.size());
  std::size_t next_range = 0;
  std::uint64_t keys = 0;
  LoadCounts totals;  // bytes and requests so far, for the overflow check in input order
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, RangeSlot*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> RangeSlot* {
                                           if (next_range == ranges.size()) {
                                             fc.stop();
                                             return nullptr;
                                           }
                                           RangeSlot& slot = slots[next_range % slots.size()];
                                           slot.range = ranges[next_range++];
                                           return &slot;
                                         }) &
          tbb::make_filter<RangeSlot*, RangeSlot*>(
              tbb::filter_mode::parallel,
              [&](RangeSlot* slot) {
                slot->error = nullptr;
                try {
                  StageClock clock(stage(s.times, &StageTimes::read));
                  if (!slot->reader) slot->reader = std::make_unique<KeySource>(source.path(), source.format());
                  slot->reader->seek(slot->range);
                  // Every record takes a byte at least (its LF), the last one perhaps none.
                  slot->reader->next(slot->work.chunk, static_cast<std::size_t>(slot->range.end - slot->range.begin + 1));
                } catch (...) {
                  slot->error = std::current_exception();
                  return slot;
                }
                if (slot->work.chunk.size()) s.place_and_digest(slot->work);
                return slot;
              }) &
          tbb::make_filter<RangeSlot*, void>(
              tbb::filter_mode::serial_in_order, [&](RangeSlot* slot) {
                const KeyChunk& chunk = slot->work.chunk;
                bool overflow = false;
                LoadCounts after = totals;
                const bool loads = !chunk.bytes.empty() || !chunk.requests.empty();
                for (std::size_t i = 0; loads && i < chunk.size() && !overflow; ++i) {
                  const auto b = exact_sum(after.bytes, chunk.bytes_of(i));
                  const auto r = exact_sum(after.requests, chunk.requests_of(i));
                  overflow = !b || !r;
                  if (!overflow) after.bytes = *b, after.requests = *r;
                }
                if (slot->error || overflow) raise_first_error(source, slot->range, totals, slot->error);
                if (chunk.first != keys)
                  throw std::logic_error(fmt::format("bulk stream: a range starts at key {}, expected {}",
                                                     chunk.first, keys));
                totals = after;
                keys += chunk.size();
                if (chunk.size()) s.consume(slot->work);
              }));
  // The source itself read nothing: it now stands at the end, having read every key.
  source.seek(ByteRange{size, size, keys, 1});
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
  const auto concurrency = static_cast<std::size_t>(arena.max_concurrency());
  // Regular files are read in parallel; stdin, pipes and FIFOs in order by one thread.
  const bool by_ranges = source.splittable() && source.keys_read() == 0;
  arena.execute([&] { by_ranges ? stream_ranges(s, concurrency) : stream_pipelined(s, concurrency); });
}

}  // namespace hrw
