// The one bulk path: read -> place (every view) -> consume, as a oneTBB pipeline.
#include <tbb/parallel_pipeline.h>

#include "hrw/bulk.hpp"

namespace hrw {

namespace {

// Chunks in flight: one being read, one being placed, one being consumed.
constexpr std::size_t kTokens = 3;

struct Slot {
  KeyChunk chunk;
  std::vector<Placement> placements;
};

void place_all(const std::vector<const ClusterView*>& views, const PlaceOptions& options,
               Slot& slot) {
  slot.placements.resize(views.size());
  for (std::size_t v = 0; v < views.size(); ++v)
    place(*views[v], slot.chunk.keys, options, slot.placements[v]);
}

// threads == 1 asks for the calling thread only: no pipeline, no overlap.
void stream_serially(KeySource& source, const std::vector<const ClusterView*>& views,
                     const StreamOptions& options, const ChunkConsumer& consume) {
  Slot slot;
  while (source.next(slot.chunk, options.chunk_keys)) {
    place_all(views, options.place, slot);
    consume(slot.chunk, slot.placements);
  }
}

}  // namespace

void stream_placements(KeySource& source, const std::vector<const ClusterView*>& views,
                       const StreamOptions& options, const ChunkConsumer& consume) {
  if (options.place.threads == 1) return stream_serially(source, views, options, consume);
  // Tokens leave the last (in-order) stage in order, so token k may reuse slot k % size
  // once k - kTokens has left: one spare slot makes that hold with margin.
  std::vector<Slot> slots(kTokens + 1);
  std::size_t next_slot = 0;
  tbb::parallel_pipeline(
      kTokens,
      tbb::make_filter<void, Slot*>(tbb::filter_mode::serial_in_order,
                                    [&](tbb::flow_control& fc) -> Slot* {
                                      Slot& slot = slots[next_slot++ % slots.size()];
                                      if (!source.next(slot.chunk, options.chunk_keys)) {
                                        fc.stop();
                                        return nullptr;
                                      }
                                      return &slot;
                                    }) &
          tbb::make_filter<Slot*, Slot*>(tbb::filter_mode::parallel,
                                         [&](Slot* slot) {
                                           place_all(views, options.place, *slot);
                                           return slot;
                                         }) &
          tbb::make_filter<Slot*, void>(tbb::filter_mode::serial_in_order, [&](Slot* slot) {
            consume(slot->chunk, slot->placements);
          }));
}

}  // namespace hrw
