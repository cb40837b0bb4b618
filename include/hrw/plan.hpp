// Migration plans between two versioned views (contract §5). See docs/plan.md for the
// file formats and the R > 1 accounting.
#pragma once
#include <algorithm>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hrw/bulk.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"
#include "hrw/placement.hpp"
#include "hrw/progress.hpp"

namespace hrw {

// ½ Σ |share_A − share_B| over the union of node ids (share 0 where a node is absent):
// the least fraction of keys any placement must move for this change.
double ideal_fraction(const ClusterView& a, const ClusterView& b);

// The moved fraction rendezvous itself gives in expectation, R = 1, where it is exact: two
// flat views that hash alike and share every common node's weight (nodes only added or
// removed). Then a key stays exactly when its best node over A ∪ B is in both, so the
// fraction is 1 − W(A∩B) / W(A∪B). nullopt otherwise (a reweight, a hierarchy, another
// seed or hash, or a view with cuts: contract §9 places some keys off their plain owner),
// where only the ideal, a lower bound, is known.
std::optional<double> expected_fraction(const ClusterView& a, const ClusterView& b);

// A warning when the views hash differently (seed or hash mode): every key may move.
std::optional<std::string> incompatibility_warning(const ClusterView& a, const ClusterView& b);

// One node of the union of both views. With R = 1 the counts are keys owned; with R > 1
// they are replica slots held (a key counts once for each node holding a replica of it).
// before = out + stayed and after = in + stayed always hold.
struct NodeFlow {
  std::string id;
  LoadCounts before, after, in, out, stayed;
  double target_before = 0, target_after = 0;  // target shares w_i / Σw in A and in B (0: absent)
};

// Per-node limits that turn a plan's batches into rounds (docs/plan.md, "Rounds").
struct ScheduleLimits {
  std::optional<std::uint64_t> max_moves_per_node;  // K: moves sent, and received, per round
  std::optional<std::uint64_t> max_bytes_per_node;  // B: bytes sent, and received, per round
  // Not a limit: bytes per second one node sends or receives, for the time estimate of
  // each round (its busiest node's max(bytes sent, bytes received) / bandwidth).
  std::optional<std::uint64_t> node_bandwidth;
  bool any() const { return max_moves_per_node || max_bytes_per_node; }
};

struct RoundStats {
  std::uint64_t round = 0;  // from 1, as in moves.csv
  std::uint64_t moves = 0, bytes = 0;
  std::uint64_t peak_send = 0, peak_receive = 0;  // most moves one node sends / receives
  std::uint64_t peak_send_bytes = 0, peak_receive_bytes = 0;
  // With a node bandwidth: max(peak_send_bytes, peak_receive_bytes) / bandwidth.
  double estimated_seconds(std::uint64_t bandwidth) const {
    return static_cast<double>(std::max(peak_send_bytes, peak_receive_bytes)) / static_cast<double>(bandwidth);
  }
};

struct ScheduleSummary {
  ScheduleLimits limits;
  std::uint64_t rounds = 0;
  // max(unit_bound, byte_bound): no schedule within the limits has fewer rounds.
  std::uint64_t lower_bound = 0;
  std::uint64_t unit_bound = 0;  // ⌈Δ / K⌉, Δ = most moves one node sends or receives
  // Over the nodes' sending and receiving sides: ⌈bytes / B⌉, where a key larger than B
  // counts one round instead of its bytes (it is alone in its round for its two nodes).
  std::uint64_t byte_bound = 0;
  std::uint64_t oversize_keys = 0;  // moves larger than B, each in a round of its own
  std::vector<RoundStats> per_round;
  // The rounds one after another at limits.node_bandwidth; nullopt without one.
  std::optional<double> estimated_seconds() const {
    if (!limits.node_bandwidth) return std::nullopt;
    double total = 0;
    for (const RoundStats& r : per_round) total += r.estimated_seconds(*limits.node_bandwidth);
    return total;
  }
};

struct PlanSummary {
  std::int64_t from_version = 0;
  std::int64_t to_version = 0;
  std::uint32_t replicas = 1;       // B's replica count: the unit of slot fractions
  std::uint32_t from_replicas = 1;  // A's (differs when the plan migrates the rule, §8)
  PlacementRule from_rule, to_rule;  // the rule each view placed by (contract §8)
  std::uint64_t batch_size = 0;
  LoadCounts read;    // every key read
  LoadCounts moved;   // keys whose owner (R = 1) or replica set (R > 1) changed
  LoadCounts stayed;  // the others
  LoadCounts owner_changes;  // R > 1: keys whose rank-1 node changed (R = 1: = moved)
  std::uint64_t rows = 0;  // rows of moves.csv
  std::uint64_t batches = 0;
  double ideal_fraction = 0;
  std::optional<double> expected_fraction;  // R = 1: see hrw::expected_fraction
  // Contract §9: for each view with cuts, its overflow keys (placed on a node whose cut they
  // do not clear); nullopt for a view without cuts.
  std::optional<std::uint64_t> from_overflow, to_overflow;
  // Contract §9, when a view has cuts: what the plan between the same views without cuts
  // moves (keys whose owner, R = 1, or set, R > 1, changes), set beside `moved`.
  std::optional<LoadCounts> plain_moved;
  bool has_bytes = false;
  bool has_requests = false;
  std::vector<NodeFlow> nodes;  // union of ids, memcmp order
  std::optional<ScheduleSummary> schedule;  // when limits were given: batches are rounds
  std::string from_placement;  // a plan from CURRENT.csv: its name (from_version unused)
  // With transitions.csv (docs/plan.md, "Transitions"): the rows of each action.
  struct TransitionCounts {
    std::uint64_t copies = 0, switches = 0, retires = 0;
  };
  std::optional<TransitionCounts> transitions;

  // Keys counted one node per key (R = 1 in both views); else replica slots (§7, §8).
  bool single() const { return replicas == 1 && from_replicas == 1; }
  double moved_fraction() const {
    return read.keys ? static_cast<double>(moved.keys) / static_cast<double>(read.keys) : 0.0;
  }
  double plain_moved_fraction() const {
    return read.keys && plain_moved ? static_cast<double>(plain_moved->keys) / static_cast<double>(read.keys) : 0.0;
  }
  // Contract §7, R > 1: each count next to the ideal made for its unit.
  double owner_changes_fraction() const {
    return read.keys ? static_cast<double>(owner_changes.keys) / static_cast<double>(read.keys) : 0.0;
  }
  // Replica slots created (= rows) over the R · keys slots.
  double slot_moves_fraction() const {
    return read.keys ? static_cast<double>(rows) / (static_cast<double>(replicas) * static_cast<double>(read.keys))
                     : 0.0;
  }
  // ½ Σ_i |slots_A(i) − slots_B(i)| / (R · keys): no assignment with these per-node slot
  // counts moves fewer slots. When the replica counts differ (contract §8):
  // Σ_i max(0, slots_B(i) − slots_A(i)) / (R_B · keys), the slots B must gain.
  double slot_ideal_fraction() const;
  // The bytes moves.csv copies: Σ over nodes of in.bytes, one key's bytes per row. R = 1:
  // moved.bytes; R > 1 it differs from moved.bytes, the bytes of keys whose set changed.
  std::uint64_t bytes_copied() const;
};

// ---- the whole command, so the CLI stays thin and tests can run it in-process ----

// Per-key loads, one value per key, or null when the input has no such column.
struct KeyLoads {
  const std::uint64_t* bytes = nullptr;
  const std::uint64_t* requests = nullptr;
};

// Keys held in memory (a Python array), planned in place in input order: what a file's
// keys and bytes/requests columns are to `hrw plan`. Not owned: it outlives the run.
struct KeysInMemory {
  KeyView keys;
  KeyLoads loads;
  std::string name = "keys";  // for messages, where a file's name would be
};

struct PlanJob {
  KeyInput keys;
  const KeysInMemory* memory = nullptr;  // not null: these keys instead of keys.path
  PlaceOptions place;
  // B's request when B places by another rule than A (a migration of the rule, contract
  // §8: options_for_plan); nullopt: `place` for both views.
  std::optional<PlaceOptions> place_to;
  const PlaceOptions& to_place() const { return place_to ? *place_to : place; }
  std::uint64_t batch_size = 1000;
  std::string out_dir;
  std::string svg;  // empty: none
  ScheduleLimits limits;  // any(): rounds instead of batches
  bool transitions = false;  // also DIR/transitions.csv
  ProgressCallback progress;   // may be empty
  // A plan computed in parts (plan_parts.hpp) whose moves are needed all at once (rounds,
  // transitions, the SVG): `memory` holds only the parts' moved keys, in input order, and
  // this is their merged summary, which the folder's summary.json reports (checked to
  // count exactly the moves the moved keys make). Null: the keys are all the keys.
  const PlanSummary* all_keys = nullptr;
};
// Writes out_dir/moves.csv and out_dir/summary.json (and the SVG) all-or-nothing.
PlanSummary run_plan(const ClusterView& from, const ClusterView& to, const PlanJob& job);
// The same for requests already validated (options_for_plan): the plan places by them,
// and job.place / job.place_to are not read.
PlanSummary run_plan(const PlanRequests& requests, const PlanJob& job);

// Counts the plan from `from` to `to` over the keys (no output): what a staged plan's
// probes measure.
PlanSummary measure_plan(const ClusterView& from, const ClusterView& to, const KeyInput& keys,
                         const PlaceOptions& place, const ProgressCallback& progress = {});

// ---- staged plans under a movement cap (docs/plan.md, "Staged plans") ----

// What a staged plan's steps are capped by: keys, bytes, or both at once.
enum class CapBy { keys, bytes, keys_and_bytes };
// "keys", "bytes" or "keys,bytes" (what the CLI's --cap-by takes); nullopt for anything else.
std::optional<CapBy> cap_by_named(std::string_view name);

struct StagedPlanJob {
  PlanJob step;               // keys, placement, batches/limits, svg unused; out_dir = DIR
  double max_moved_fraction = 1.0;  // F, in (0, 1]
  CapBy cap_by = CapBy::keys;
  // Step k < n's view gets this + k − 1; nullopt: A's version + k, which must stay below
  // B's. The last step is B (its version). docs/plan.md, "Staged plans", "Versions".
  std::optional<std::int64_t> first_step_version;
};

struct StagedStep {
  ClusterSpec view;  // steps/NN/view.json
  PlanSummary plan;  // view of the step before (A for the first) -> this view
};

struct StagedPlan {
  std::vector<StagedStep> steps;
  PlanSummary direct;  // A -> B in one step
  double max_moved_fraction = 1.0;
  CapBy cap_by = CapBy::keys;
  std::uint64_t probes = 0;  // placement passes spent choosing the steps
  std::uint64_t total_moved() const;
};

// Writes DIR/steps/NN/{view.json,moves.csv,summary.json} for every step and DIR/summary.json.
// Growth first (weights raised, new nodes entering), then shrinkage; each step's weights
// are the largest move along that path that stays within the cap, found by bisection with
// a placement pass per probe. InputError when the cap cannot be met or is not in (0, 1].
StagedPlan run_staged_plan(const ClusterView& from, const ClusterView& to, const StagedPlanJob& job);

// ---- plans from where the keys really are (docs/plan.md, "From the actual placement") ----

struct PlacementInput {
  std::string path;                       // CURRENT.csv; "-": stdin
  std::optional<std::uint32_t> replicas;  // must match the file's when given
  std::size_t chunk_keys = kDefaultChunkKeys;
  std::vector<std::string> ignored_columns;  // header columns to skip (docs/errors.md, "CSV columns")
};

struct PlacementPlanJob {
  PlacementInput current;
  PlaceOptions place;  // replicas: the file's
  std::uint64_t batch_size = 1000;
  std::string out_dir;
  std::string svg;
  ScheduleLimits limits;
  bool transitions = false;
  ProgressCallback progress;
};
// The moves that bring every key from its current holder(s) to B's: exactly the keys whose
// holders differ from B's. Writes what run_plan writes. ideal_fraction: from the current
// owners' shares to B's.
PlanSummary run_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job);
// The same plan counted with no output (the summary run_plan_from_placement writes;
// temporary files in the system's temp folder).
PlanSummary measure_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job);
// Contract §8: the request a plan from a placement places B by: B's rule when it has one
// (the settings given must agree: InputError naming the setting otherwise), else `asked`
// (whose replica count the placement's then replaces).
PlaceOptions placement_plan_options(const ClusterView& to, const PlaceOptions& asked, GivenSettings given);

struct CheckJob {
  PlacementInput current;
  PlaceOptions place;    // replicas: the file's
  std::string misplaced;  // empty: none; else key,expected,actual rows (docs/plan.md, "hrw check")
  std::string temp_dir;  // for the duplicate-key check's temporary files
  ProgressCallback progress;
};
// Where the placement differs from B: moved = keys not where B puts them; per node `in` =
// replicas B puts there that are missing, `out` = replicas held there that B puts elsewhere.
PlanSummary check_placement(const ClusterView& to, const CheckJob& job);
// Contract §8: a check against a view with a rule checks by it: job.place becomes the
// rule's (the settings given, and a replica count given in job.current.replicas, must
// agree). The placement may have more replica columns than the rule's R (left empty by an
// undone migration), not fewer. A view without a rule: the job as it is.
void apply_view_rule(const ClusterView& to, CheckJob& job, GivenSettings given);

}  // namespace hrw

namespace hrw {

// ---- progress of a plan being executed (docs/plan.md, "Checking progress") ----

struct ProgressCheckJob {
  PlacementInput current;
  PlaceOptions place;            // replicas: the file's
  std::string plan_dir;          // a plan folder: to.json, from.json or summary.json's from_placement, moves.csv or transitions.csv
  std::optional<std::uint64_t> through_round;  // rounds 1..N executed (0: none; nullopt: every round)
  std::string misplaced;         // empty: none; else key,expected,actual rows
  std::string temp_dir;          // for the duplicate-key check's temporary files
  ProgressCallback progress;
};

struct ProgressCheck {
  std::string placement;         // CURRENT's name
  std::string plan_dir;
  std::int64_t from_version = 0, to_version = 0;
  std::string from_placement;  // a plan from a placement file: its name (from_version unused)
  std::uint32_t replicas = 1;
  std::uint64_t through_round = 0;
  std::uint64_t keys = 0;        // keys of CURRENT
  std::uint64_t expected_moved = 0;  // of those, keys expected where B puts them
  std::uint64_t misplaced = 0;   // keys not where expected
};

// The expected placement after rounds 1..N of the plan in plan_dir: B's (to.json) for the
// keys whose round (transitions.csv, else moves.csv) is at most N, A's (from.json, or for a
// plan from a placement file the plan's rows) for the others; each key of CURRENT compared
// with it as a set of holders. Writes `misplaced` all or nothing.
ProgressCheck check_plan_progress(const ProgressCheckJob& job);

// A staged plan's folder holds steps/NN/ (docs/plan.md, "Staged plans"); each step is a
// plan folder of its own, checked alone.
bool is_staged_plan(const std::string& plan_dir);
std::string plan_step_dir(const std::string& plan_dir, std::uint64_t step);  // steps/NN

}  // namespace hrw
