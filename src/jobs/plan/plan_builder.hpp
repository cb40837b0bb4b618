// A plan's accounting, chunk by chunk (private to the jobs layer; tests reach it through
// hrw_internal): what run_plan, the plans from a placement and the plans in parts share.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "bulk/stream.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"
#include "hrw/raw_buffer.hpp"

namespace hrw {

class MoveCsv;  // hrw/output.hpp

// Where a plan's moves go, one call per moves.csv row in input order: `from` and `to` are
// indices into PlanBuilder::ids(), the key and its loads are chunk.keys[i],
// chunk.bytes_of(i), chunk.requests_of(i). The output layer renders them (MoveRows), a
// schedule collects them.
class MoveSink {
 public:
  virtual ~MoveSink() = default;
  virtual void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) = 0;
  // A sink that writes each move as this format's row, in input order, returns the format:
  // the plan then renders each moved key's row without its batch on the thread that placed
  // the chunk (PlanBuilder::digest, in parallel) and hands it over with the move, so that
  // the in-order step, which takes one chunk at a time, only adds batch numbers.
  virtual const MoveCsv* row_format() const { return nullptr; }
  // add_move with the row row_format() rendered for it (`key,from,to` and the LF).
  virtual void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to,
                        std::string_view unbatched_row) {
    (void)unbatched_row;
    add_move(chunk, i, from, to);
  }
  // Every key whose holders change (owner or set), after its add_move calls: its holders
  // in A and in B, rank order, as union indices. What transitions.csv is made of.
  virtual void key_changed(const KeyChunk& chunk, std::size_t i, std::span<const std::uint32_t> from,
                           std::span<const std::uint32_t> to) {
    (void)chunk, (void)i, (void)from, (void)to;
  }
};

// The plan's per-chunk state (R = 1, keys only), filled by PlanBuilder::digest on the
// placing thread and folded in by PlanBuilder::add.
struct PlanChunk {
  // [0..u) before, [u..2u) after, [2u..3u) stayed, [3u..4u) out, [4u..5u) in per union
  // node, then the stayed total and the moved total; empty: not digested.
  std::vector<std::uint64_t> counts;
  // moved[0..moved total): chunk indices of the keys that move; moved_union[2m],
  // moved_union[2m + 1]: key m's union nodes in A and in B, so that the in-order step
  // reads no placement (another core's cache lines). Uninitialised room for every key of
  // a chunk: zero-filling it would touch (and fault in) pages that the few moved keys
  // never reach.
  detail::RawBuffer<std::uint32_t> moved;
  detail::RawBuffer<std::uint32_t> moved_union;
  // With a row format (digest's `rows`): the moved keys' rows without their batch, one
  // after another; row m ends at row_ends[m]. Empty when the chunk was digested without.
  std::string rows;
  std::vector<std::uint32_t> row_ends;
  // Views with cuts (contract §9): the keys the plan without cuts moves, counted by digest.
  LoadCounts plain_moved;
  bool plain_counted = false;
};

// Accumulates a plan chunk by chunk and hands its moves to a MoveSink.
// Batches of a plan (docs/plan.md, "DIR/summary.json"): its rows' batches, and batch 1 when
// keys change with no copy to make (they only switch or retire, in batch 1): a plan that
// changes something has a batch to execute.
inline std::uint64_t batch_count(std::uint64_t rows, std::uint64_t batch_size, std::uint64_t changed_keys) {
  const std::uint64_t batches = rows / batch_size + (rows % batch_size != 0);
  return batches == 0 && changed_keys > 0 ? 1 : batches;
}

class PlanBuilder {
 public:
  // Both views placed with `replicas` (no distinct label).
  PlanBuilder(const ClusterView& from, const ClusterView& to, std::uint32_t replicas, std::uint64_t batch_size);
  // Each view's request (the same one, or two rules when the plan migrates the rule).
  PlanBuilder(const ClusterView& from, const ClusterView& to, const PlaceOptions& from_place,
              const PlaceOptions& to_place, std::uint64_t batch_size);
  ~PlanBuilder();

  // ChunkHandlers::digest (thread-safe): for R = 1 without bytes/requests, counts the
  // chunk (placements[0] = from, [1] = to) into `state`, on the thread that placed it,
  // so that add() only folds the counts in; when a view has cuts, also places the chunk
  // in both views without cuts and counts what that plain plan moves (contract §9).
  // With `rows` (MoveSink::row_format), also renders the moved keys' rows.
  void digest(const ChunkWork& work, PlanChunk& state, const MoveCsv* rows = nullptr) const;
  // ChunkHandlers::consume, in input order: accounts for the chunk (digested or not) and
  // hands its moves to `moves` when it is not null.
  void add(const ChunkWork& work, PlanChunk& state, MoveSink* moves);
  // The same for a chunk placed in both views outside the pipeline.
  void add(const KeyChunk& chunk, const Placement& from, const Placement& to, MoveSink* moves);

  // Checks that moved + stayed = read in total and per node (and, R = 1, that
  // Σ in = Σ out = moved) and that `keys_read` keys were accounted for; throws
  // std::logic_error (an internal error) when not.
  PlanSummary finish(std::uint64_t keys_read, bool has_bytes, bool has_requests) const;

  // No plan without cuts beside this one (a plan from a placement file: its "from" is
  // where the keys are).
  void without_plain_plan();

  // Union of both views' ids, memcmp order: what MoveSink's node indices refer to.
  const std::vector<std::string>& ids() const { return ids_; }

 private:
  struct PlainViews;  // both views without cuts, placed together (plan_builder.cpp)

  bool keys_only(const KeyChunk& chunk) const;
  // Key i's holders in A and in B (rank order, partial sets short), as union indices.
  void holders(const Placement& from, const Placement& to, std::size_t i, std::vector<std::uint32_t>& in_a,
               std::vector<std::uint32_t>& in_b) const;
  void account(const KeyChunk& chunk, const Placement& from, const Placement& to, MoveSink* moves);
  // Contract §9: the keys (loads) whose owner (R = 1) or set changes without cuts.
  LoadCounts plain_moved(const KeyChunk& chunk) const;
  void count_overflow(const Placement& from, const Placement& to);
  void count_keys(const KeyChunk& chunk, const Placement& from, const Placement& to,
                  PlanChunk& state, const MoveCsv* rows = nullptr) const;
  void fold_keys(const KeyChunk& chunk, const PlanChunk& state, MoveSink* moves);
  void add_loads(const KeyChunk& chunk, const Placement& from, const Placement& to,
                 MoveSink* moves);
  void add_replicated(const KeyChunk& chunk, std::size_t i, const Placement& from,
                      const Placement& to, MoveSink* moves);

  const ClusterView* from_;
  const ClusterView* to_;
  PlacementRule from_rule_, to_rule_;
  std::uint32_t from_replicas_, replicas_;  // A's and B's
  std::uint64_t batch_size_;
  std::vector<std::string> ids_;      // union of ids, memcmp order
  std::vector<std::uint32_t> from_union_, to_union_;  // view index -> union index
  std::vector<NodeFlow> flows_;
  LoadCounts read_, moved_, stayed_, owner_changes_;
  std::uint64_t rows_ = 0;
  std::uint64_t overflow_[2] = {0, 0};  // contract §9: overflow keys in from, to
  std::vector<std::uint32_t> set_a_, set_b_;  // scratch for R > 1
  std::unique_ptr<const PlainViews> plain_;   // when a view has cuts
  LoadCounts plain_moved_;
};

// Plans keys held in memory chunk by chunk, each chunk placed in both views at once on
// the requests' threads: the same builder and sink as the stream of a file's keys.
// `sink_for` gets the builder (for its ids) before the first chunk; `after_chunk` runs
// after each chunk with its placements in both views.
using ChunkPlaced = std::function<void(const KeyChunk&, const Placement& from, const Placement& to)>;
PlanSummary plan_in_memory(const ValidRequest& from, const ValidRequest& to, const KeysInMemory& in,
                           std::uint64_t batch_size, const std::function<MoveSink*(const PlanBuilder&)>& sink_for,
                           const ChunkPlaced& after_chunk);
// What the caller of stream_plan does with each chunk besides the builder's work, in the
// bulk pipeline's steps (ChunkHandlers). Each may be empty.
struct PlanChunkSteps {
  std::function<void(std::size_t slots)> prepare;     // once, before the first chunk
  std::function<void(const ChunkWork&)> after_chunk;  // in input order, after the chunk's moves
  std::function<void(const ChunkWork&)> write;        // after that, chunks in parallel
};
// The same for keys streamed from `source` (a file, or a byte range of one): chunks placed
// on the requests' threads, `steps` run on each.
PlanSummary stream_plan(const ValidRequest& from, const ValidRequest& to, KeySource& source,
                        const StreamOptions& options, std::uint64_t batch_size,
                        const std::function<MoveSink*(const PlanBuilder&)>& sink_for, const PlanChunkSteps& steps);

}  // namespace hrw
