// The files of a plan: moves.csv, summary.json, the views (from.json, to.json),
// transitions.csv when asked for, and the optional SVG, written into the PlanFolder's new
// tree (at `sub`, "" for the folder itself, "steps/01" for a step). Opened up front, so
// that an unwritable destination fails before any key is read; committed together after
// the accounting check (every write error, that of an SVG outside the folder too, surfaces
// before any rename); the folder is then swapped in as a unit (PlanFolder::publish).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hrw/atomic_file.hpp"
#include "hrw/output.hpp"
#include "hrw/plan_folder.hpp"
#include "hrw/plan.hpp"
#include "plan/scheduled_moves.hpp"
#include "plan/plan_builder.hpp"
#include "output/move_rows.hpp"

namespace hrw::plan_detail {

// What a plan folder holds besides moves.csv and summary.json.
struct PlanFiles {
  const ClusterView* from = nullptr;  // DIR/from.json; null for a plan from a placement file
  const ClusterView* to = nullptr;    // DIR/to.json
  bool transitions = false;           // DIR/transitions.csv
};

class PlanOutputs {
 public:
  PlanOutputs(const PlanFolder& folder, const std::string& sub, const std::string& svg,
              std::uint64_t batch_size, const ScheduleLimits& limits, const PlanFiles& files);

  // The folder the files go in (inside the new tree): where spill files go too.
  const std::string& dir() const { return dir_; }

  // Once the union ids are known (PlanBuilder::ids()): writes the header and returns
  // where the moves go, batched rows or (with limits) the schedule's spill.
  MoveSink& start(const std::vector<std::string>& ids, bool with_bytes, bool with_requests);
  // Rows moved out of the in-order step: the bytes of moves.csv (and transitions.csv) made
  // since the last take, and the places in the files reserved for them.
  struct TakenRows {
    std::string moves, transitions;
    std::uint64_t moves_at = 0, transitions_at = 0;
  };
  // In input order (after each chunk): once the rows made so far reach 64 KiB, swaps
  // them into `taken` and reserves their places (AtomicFile::reserve); else leaves `taken`
  // empty and the rows for a later chunk (so that writes stay large on a disk).
  void take(TakenRows& taken);
  // On any thread, after take: writes what take moved into `taken`.
  void write_taken(const TakenRows& taken) const;
  // Writes the rows made so far, in order.
  void flush();
  // With limits, writes the rounds and fills summary.schedule; then writes summary.json,
  // the views and the SVG and commits the files inside the folder at once.
  void publish(PlanSummary& summary);

 private:
  // Hands every move to the batched rows or the schedule, and (with transitions) every
  // key to the transition rows.
  class Tap : public MoveSink {
   public:
    explicit Tap(PlanOutputs& out) : out_(&out) {}
    void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override;
    void key_changed(const KeyChunk& chunk, std::size_t i, std::span<const std::uint32_t> from,
                     std::span<const std::uint32_t> to) override;

   private:
    PlanOutputs* out_;
    std::uint64_t rows_ = 0;        // copies so far (their batches, without limits)
    std::uint64_t key_copies_ = 0;  // copies of the key being added
  };

  std::string dir_;
  std::uint64_t batch_size_;
  ScheduleLimits limits_;
  PlanFiles files_;
  AtomicFile moves_;
  AtomicFile summary_;
  std::optional<AtomicFile> from_json_, to_json_, transitions_;
  std::optional<AtomicFile> svg_;
  std::optional<MoveCsv> csv_;
  std::string rows_;
  std::optional<BatchedMoveRows> batched_;
  std::optional<ScheduledMoves> scheduled_;
  std::optional<TransitionRows> transition_rows_;
  std::string transition_text_;
  Tap tap_{*this};
  MoveSink* sink_ = nullptr;
};

// Streams the plan from `from` to `to` of job.keys (or job.memory) into `out` and commits its files (the
// folder's publication is the caller's). job.place is not read: the requests carry it.
PlanSummary write_plan(const ValidRequest& from, const ValidRequest& to, const PlanJob& job, PlanOutputs& out);

// The plan of job's keys (a file, or job.memory) from `from` to `to` by job.place, counted
// with no output: a staged plan's probe.
PlanSummary measure_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job,
                         const ProgressCallback& progress);

}  // namespace hrw::plan_detail
