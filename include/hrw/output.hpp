// The output layer: every CSV row, JSON summary, text table and SVG chart a bulk command
// writes. Accounting classes (PlaceStats, PlanBuilder) count; these render.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"
#include "hrw/place.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"

namespace hrw {

// ---- hrw place ----

// The CSV rows of `hrw place` (header: key,owner or key,replica_1..replica_R, then bytes
// and requests when the keys have them, so the output is a placement file for
// --from-placement; a partial result leaves its missing replicas empty). Node ids are
// quoted once, up front.
class PlacementCsv {
 public:
  PlacementCsv(const ClusterView& view, std::uint32_t replicas, bool with_bytes = false,
               bool with_requests = false);
  std::string header() const;
  void append_rows(std::string& out, const KeyChunk& chunk, const Placement& placement) const;

 private:
  std::uint32_t replicas_;
  bool with_bytes_, with_requests_;
  std::vector<std::string> ids_;  // CSV-ready
};

// --stats: per-node keys (bytes, requests) owned, shares and peak-to-mean, as JSON and as
// the table printed on stderr.
std::string place_stats_json(const PlaceStats& stats, bool with_bytes, bool with_requests);
std::string place_stats_table(const PlaceStats& stats, bool with_bytes, bool with_requests);

// ---- hrw plan ----

// moves.csv rows: `batch,key,from,to` (+ `bytes`, `requests` when asked for). Node ids
// are PlanBuilder::ids() indices, quoted once, up front.
class MoveCsv {
 public:
  MoveCsv(const std::vector<std::string>& ids, bool with_bytes, bool with_requests);
  std::string header() const;
  void append_row(std::string& out, std::uint64_t batch, std::string_view key, std::uint32_t from,
                  std::uint32_t to, std::uint64_t bytes, std::uint64_t requests) const;

 private:
  std::vector<std::string> ids_;  // CSV-ready
  bool with_bytes_, with_requests_;
};

// The unscheduled plan's rows: in input order, cut every `batch_size` rows (row k,
// counting from 0, is in batch k / batch_size + 1), appended to `out`. first_row: rows of
// the same plan before these (a plan computed in parts): the numbering continues.
class BatchedMoveRows : public MoveSink {
 public:
  BatchedMoveRows(const MoveCsv& csv, std::uint64_t batch_size, std::string& out,
                  std::uint64_t first_row = 0)
      : csv_(&csv), batch_size_(batch_size), out_(&out), rows_(first_row) {}
  void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override {
    csv_->append_row(*out_, rows_++ / batch_size_ + 1, chunk.keys[i], from, to, chunk.bytes_of(i),
                     chunk.requests_of(i));
  }

 private:
  const MoveCsv* csv_;
  std::uint64_t batch_size_;
  std::string* out_;
  std::uint64_t rows_ = 0;
};

// transitions.csv rows (docs/plan.md, "Transitions"): `batch,key,action,node,source`.
// Per key its copies, then its switch (the owner changes), then its retires (nodes of A's
// set not in B's); per batch all copies, then all switches, then all retires. Copies come
// in batch order (copy()); a key's switch and retires join the batch of its last copy, or,
// for a key without copies, the batch of the last copy written so far (1 when none).
class TransitionRows {
 public:
  explicit TransitionRows(const std::vector<std::string>& ids);  // PlanBuilder::ids()
  static std::string header() { return "batch,key,action,node,source\n"; }
  // A copy row: `node` receives the key from `source`. key_index: its input position.
  void copy(std::string& out, std::uint64_t batch, std::uint64_t key_index, std::string_view key,
            std::uint32_t node, std::uint32_t source);
  // A key whose holders change. `copies_to_come`: its copy rows not yet given to copy()
  // (0 when they were); its switch and retires wait for them.
  void key_changed(std::uint64_t key_index, std::string_view key, std::span<const std::uint32_t> from,
                   std::span<const std::uint32_t> to, std::uint64_t copies_to_come);
  // The last batch's switches and retires; std::logic_error when a key still waits.
  void finish(std::string& out);
  PlanSummary::TransitionCounts counts() const { return counts_; }

 private:
  struct Waiting {
    std::uint64_t copies;
    std::string key;
    std::vector<std::uint32_t> from, to;
  };
  void release(std::string_view key, std::span<const std::uint32_t> from, std::span<const std::uint32_t> to);
  void flush(std::string& out);

  std::vector<std::string> ids_;  // CSV-ready
  std::uint64_t batch_ = 0;      // of the last copy written; 0: none yet
  std::string switches_, retires_;  // the current batch's rows, written after its copies
  std::unordered_map<std::uint64_t, Waiting> waiting_;
  PlanSummary::TransitionCounts counts_;
};

// "42.0 s", "3 min 12 s (192 s)", "8 h 48 min (31680 s)": estimated durations.
std::string duration_text(double seconds);
// summary.json.
std::string summary_json(const PlanSummary& summary);
// The operator's summary on stderr: moved vs ideal, biggest flows, batches.
std::string summary_text(const PlanSummary& summary);
// Per-node in/out flows as a self-contained SVG (hrw::svg::render).
std::string plan_svg(const PlanSummary& summary);

// A cluster file (the README's JSON) for a view: what staged plans write as view.json.
// Weights are printed so that they parse back to the same doubles.
std::string cluster_json(const ClusterSpec& spec);
// A validated view as a cluster file that places every key as it does (hierarchy
// included): what a plan folder writes as from.json and to.json.
std::string view_file_json(const ClusterView& view);

// ---- staged plans ----

// DIR/summary.json: the steps (moved, moved_fraction) and total_moved vs direct_moved.
std::string staged_summary_json(const StagedPlan& plan);
// The stderr summary of a staged plan.
std::string staged_summary_text(const StagedPlan& plan);

}  // namespace hrw
