// Migration plans between two versioned views (contract §5). See docs/plan.md for the
// file formats and the R > 1 accounting.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hrw/bulk.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/placement.hpp"

namespace hrw {

// ½ Σ |share_A − share_B| over the union of node ids (share 0 where a node is absent):
// the least fraction of keys any placement must move for this change.
double ideal_fraction(const ClusterView& a, const ClusterView& b);

// A warning when the views hash differently (seed or hash mode): every key may move.
std::optional<std::string> incompatibility_warning(const ClusterView& a, const ClusterView& b);

// One node of the union of both views. With R = 1 the counts are keys owned; with R > 1
// they are replica slots held (a key counts once for each node holding a replica of it).
// before = out + stayed and after = in + stayed always hold.
struct NodeFlow {
  std::string id;
  LoadCounts before, after, in, out, stayed;
};

struct PlanSummary {
  std::int64_t from_version = 0;
  std::int64_t to_version = 0;
  std::uint32_t replicas = 1;
  std::uint64_t batch_size = 0;
  LoadCounts read;    // every key read
  LoadCounts moved;   // keys whose owner (R = 1) or replica set (R > 1) changed
  LoadCounts stayed;  // the others
  std::uint64_t rows = 0;  // rows of moves.csv
  std::uint64_t batches = 0;
  double ideal_fraction = 0;
  bool has_bytes = false;
  bool has_requests = false;
  std::vector<NodeFlow> nodes;  // union of ids, memcmp order

  double moved_fraction() const {
    return read.keys ? static_cast<double>(moved.keys) / static_cast<double>(read.keys) : 0.0;
  }
};

// Accumulates a plan chunk by chunk and renders its move rows.
class PlanBuilder {
 public:
  // first_row: moves.csv rows that precede this plan's (a plan computed in parts): batch
  // numbers continue from them.
  PlanBuilder(const ClusterView& from, const ClusterView& to, std::uint32_t replicas,
              std::uint64_t batch_size, std::uint64_t first_row = 0);

  // ChunkHandlers::digest (thread-safe): for R = 1 without bytes/requests, counts the
  // chunk (placements[0] = from, [1] = to) into work.counts and work.marks, on the thread
  // that placed it, so that add() only folds the counts in.
  void digest(ChunkWork& work) const;
  // ChunkHandlers::consume, in input order: accounts for the chunk (digested or not) and
  // appends its moves.csv rows to `rows` when it is not null.
  void add(ChunkWork& work, std::string* rows);
  // The same for a chunk placed in both views outside the pipeline.
  void add(const KeyChunk& chunk, const Placement& from, const Placement& to, std::string* rows);

  // Checks that moved + stayed = read in total and per node (and, R = 1, that
  // Σ in = Σ out = moved) and that `keys_read` keys were accounted for; throws
  // std::logic_error (an internal error) when not.
  PlanSummary finish(std::uint64_t keys_read, bool has_bytes, bool has_requests) const;

  static std::string header() { return "batch,key,from,to\n"; }

 private:
  bool keys_only(const KeyChunk& chunk) const;
  void count_keys(const KeyChunk& chunk, const Placement& from, const Placement& to,
                  std::vector<std::uint64_t>& counts, std::vector<std::uint32_t>& moved) const;
  void fold_keys(const KeyChunk& chunk, const Placement& from, const Placement& to,
                 const std::vector<std::uint64_t>& counts, const std::vector<std::uint32_t>& moved,
                 std::string* rows);
  void add_loads(const KeyChunk& chunk, const Placement& from, const Placement& to,
                 std::string* rows);
  void add_replicated(const KeyChunk& chunk, std::size_t i, const Placement& from,
                      const Placement& to, std::string* rows);
  void append_row(std::string& rows, std::string_view key, std::uint32_t from, std::uint32_t to);

  const ClusterView* from_;
  const ClusterView* to_;
  std::uint32_t replicas_;
  std::uint64_t batch_size_;
  std::vector<std::string> ids_;      // union of ids, memcmp order
  std::vector<std::string> csv_ids_;  // the same, CSV-ready
  std::vector<std::uint32_t> from_union_, to_union_;  // view index -> union index
  std::vector<NodeFlow> flows_;
  LoadCounts read_, moved_, stayed_;
  std::uint64_t rows_ = 0;
  std::uint64_t first_row_ = 0;
  std::vector<std::uint32_t> set_a_, set_b_;  // scratch for R > 1
};

std::string summary_json(const PlanSummary& summary);
// The operator's summary on stderr: moved vs ideal, biggest flows, batches.
std::string summary_text(const PlanSummary& summary);
// Per-node in/out flows as a self-contained SVG (hrw::svg::render).
std::string plan_svg(const PlanSummary& summary);

// ---- whole commands, so the CLI stays thin and tests can run them in-process ----

struct KeyInput {
  std::string path;                 // "-": stdin
  std::optional<KeyFormat> format;  // default: from the file name
  std::size_t chunk_keys = kDefaultChunkKeys;
};

struct PlaceJob {
  KeyInput keys;
  PlaceOptions place;
  std::string out = "-";
  std::string stats;  // JSON stats file; empty: none
  bool progress = false;
};
// Streams the placement to job.out; returns the stats (printed by the caller).
PlaceStats run_place(const ClusterView& view, const PlaceJob& job, bool& has_bytes,
                     bool& has_requests);

struct PlanJob {
  KeyInput keys;
  PlaceOptions place;
  std::uint64_t batch_size = 1000;
  std::string out_dir;
  std::string svg;  // empty: none
  bool progress = false;
  StageTimes* times = nullptr;  // benchmarks: filled when not null
};
// Writes out_dir/moves.csv and out_dir/summary.json (and the SVG) all-or-nothing.
PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job);

}  // namespace hrw
