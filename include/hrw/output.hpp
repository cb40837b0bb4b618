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
#include "hrw/select.hpp"

namespace hrw {

// ---- hrw select ----

// `hrw select` (the table): the key line, for a hierarchical view each level's buckets,
// every node's rank, fnv1a and score, the owner and, when asked, the replicas.
std::string selection_table(const ClusterView& view, const Selection& selection);

// `hrw select --format json`: key, seed, hash, version, weighted, owner, replicas (when
// asked), partial, for a hierarchical view hierarchy and path[{level, bucket, fnv, r, weight,
// score}], scores[{node, rank, fnv, r, score[, weight][, cut, clears]}], with cuts (§9) also
// overflow, on one line without a newline. Keys and ids are bytes: invalid UTF-8 is shown as U+FFFD rather than refused.
std::string selection_json(const ClusterView& view, const Selection& selection);

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
  std::size_t longest_id_ = 0;    // of ids_
};

// --stats: per-node keys (bytes, requests) owned, shares and peak-to-mean, as JSON and as
// the table printed on stderr.
std::string place_stats_json(const PlaceStats& stats, bool with_bytes, bool with_requests);
std::string place_stats_table(const PlaceStats& stats, bool with_bytes, bool with_requests);
// place_stats_json text of a placement by `view` back into its counts: what a part of a
// placement computed in parts sends to the merge (PlaceStats::add). InputError when the
// text is not such stats for this view.
PlaceStats parse_place_stats_json(const ClusterView& view, std::string_view text);

// ---- hrw plan ----

// moves.csv rows: `batch,key,from,to` (+ `bytes`, `requests` when asked for). Node ids
// are PlanBuilder::ids() indices, quoted once, up front.
class MoveCsv {
 public:
  MoveCsv(const std::vector<std::string>& ids, bool with_bytes, bool with_requests);
  std::string header() const;
  void append_row(std::string& out, std::uint64_t batch, std::string_view key, std::uint32_t from,
                  std::uint32_t to, std::uint64_t bytes, std::uint64_t requests) const;
  // The same row without its batch column (`key,from,to[,bytes][,requests]` and the LF): a
  // plan computed in parts renders its rows before it knows their batches.
  void append_unbatched_row(std::string& out, std::string_view key, std::uint32_t from, std::uint32_t to,
                            std::uint64_t bytes, std::uint64_t requests) const;

 private:
  std::vector<std::string> ids_;  // CSV-ready
  bool with_bytes_, with_requests_;
};

// "42.0 s", "3 min 12 s (192 s)", "8 h 48 min (31680 s)": estimated durations.
std::string duration_text(double seconds);
// summary.json.
std::string summary_json(const PlanSummary& summary);
// The operator's summary on stderr: moved vs ideal, biggest flows, batches.
std::string summary_text(const PlanSummary& summary);
// Per-node in/out flows as a self-contained SVG (hrw::svg::render).
std::string plan_svg(const PlanSummary& summary);

// ---- staged plans ----

// DIR/summary.json: the steps (moved, moved_fraction) and total_moved vs direct_moved.
std::string staged_summary_json(const StagedPlan& plan);
// The stderr summary of a staged plan.
std::string staged_summary_text(const StagedPlan& plan);

// ---- hrw check ----

// `hrw check` against a view: keys (and bytes) not where it puts them, then a row per node
// with keys or replicas missing or extra (ids quoted by quote_for_message; beyond 40 nodes
// the 10 with the most and the fewest, and the quartiles).
std::string check_text(const PlanSummary& summary);
// The same as JSON: placement, to_version, replicas, keys, misplaced, misplaced_fraction
// [, bytes, misplaced_bytes], nodes[{id, missing, extra[, bytes_missing, bytes_extra]}].
std::string check_json(const PlanSummary& summary);
// `hrw check --plan`: the placement against the plan after its rounds; `step` names the
// staged plan's step (" step S") or is empty.
std::string progress_check_text(const ProgressCheck& check, const std::string& step);
std::string progress_check_json(const ProgressCheck& check);

}  // namespace hrw
