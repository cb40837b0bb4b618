// The one bulk path: read -> place (every view) -> digest -> consume, as a oneTBB pipeline.
#include <tbb/parallel_pipeline.h>
#include <tbb/task_arena.h>

#include "hrw/bulk.hpp"

namespace hrw {

namespace {

std::vector<BatchPlacer> compile_views(const std::vector<const ClusterView*>& views,
                                       const PlaceOptions& options) {
  std::vector<BatchPlacer> placers;
  for (const ClusterView* view : views) placers.emplace_back(*view, options);
  return placers;
}

void place_and_digest(const std::vector<BatchPlacer>& placers, const ChunkHandlers& handlers,
                      ChunkWork& work) {
  work.placements.resize(placers.size());
  for (std::size_t v = 0; v < placers.size(); ++v)
    placers[v].place(work.chunk.keys, work.placements[v]);
  if (handlers.digest) handlers.digest(work);
}

void stream_serially(KeySource& source, const std::vector<BatchPlacer>& placers,
                     std::size_t chunk_keys, const ChunkHandlers& handlers) {
  ChunkWork work;
  while (source.next(work.chunk, chunk_keys)) {
    place_and_digest(placers, handlers, work);
    handlers.consume(work);
  }
}

// Each chunk is placed by one thread (no nested parallel_for): threads work on different
// chunks, which needs no synchronisation inside a chunk and keeps every thread busy while
// one of them reads.
void stream_pipelined(KeySource& source, const std::vector<BatchPlacer>& placers,
                      std::size_t chunk_keys, std::size_t threads, const ChunkHandlers& handlers) {
  // Two chunks per thread in flight: one being placed, one being read or consumed.
  const std::size_t tokens = 2 * threads;
  // Tokens leave the last (in-order) stage in order, so token k may reuse slot k % size
  // once k - tokens has left: one spare slot makes that hold with margin.
  std::vector<ChunkWork> slots(tokens + 1);
  std::size_t next_slot = 0;
  tbb::parallel_pipeline(
      tokens,
      tbb::make_filter<void, ChunkWork*>(tbb::filter_mode::serial_in_order,
                                         [&](tbb::flow_control& fc) -> ChunkWork* {
                                           ChunkWork& work = slots[next_slot++ % slots.size()];
                                           if (!source.next(work.chunk, chunk_keys)) {
                                             fc.stop();
                                             return nullptr;
                                           }
                                           return &work;
                                         }) &
          tbb::make_filter<ChunkWork*, ChunkWork*>(tbb::filter_mode::parallel,
                                                   [&](ChunkWork* work) {
                                                     place_and_digest(placers, handlers, *work);
                                                     return work;
                                                   }) &
          tbb::make_filter<ChunkWork*, void>(tbb::filter_mode::serial_in_order,
                                             [&](ChunkWork* work) { handlers.consume(*work); }));
}

}  // namespace

void stream_placements(KeySource& source, const std::vector<const ClusterView*>& views,
                       const StreamOptions& options, const ChunkHandlers& handlers) {
  PlaceOptions per_chunk = options.place;
  per_chunk.threads = 1;  // the parallelism is across chunks
  const std::vector<BatchPlacer> placers = compile_views(views, per_chunk);
  const unsigned threads = options.place.threads;
  if (threads == 1) return stream_serially(source, placers, options.chunk_keys, handlers);
  tbb::task_arena arena(threads == 0 ? tbb::task_arena::automatic : static_cast<int>(threads));
  arena.execute([&] {
    stream_pipelined(source, placers, options.chunk_keys,
                     static_cast<std::size_t>(arena.max_concurrency()), handlers);
  });
}

}  // namespace hrw
