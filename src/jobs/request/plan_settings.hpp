// The front door of `plan` (docs/plan.md, "Options that go together"): the settings as a
// front end was given them, and the one function that checks every bound and combination
// and then resolves each view's rule (contract §8). The CLI and Python (and so Dask) fill
// PlanSettings and call check_plan; neither keeps a bound or a combination of its own.
// Errors name settings (InputError::setting, ::mentioned): the CLI words them with its
// flags, Python with its keywords.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "hrw/cluster_view.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"

namespace hrw {

struct PlanSettings {
  // The placement request; a value given must agree with each view's rule (§8).
  std::optional<std::uint64_t> replicas;
  std::optional<std::string> distinct;
  bool partial = false;  // asked for
  std::uint64_t threads = 0;
  Engine engine = Engine::simd;
  // moves.csv in batches (default 1000 rows), or in rounds under per-node limits.
  std::optional<std::uint64_t> batch_size;
  std::optional<std::uint64_t> max_moves_per_node, max_bytes_per_node;
  std::optional<std::uint64_t> node_bandwidth;  // estimates each round's time
  // A staged plan: steps that each move at most this fraction, of keys or bytes or both.
  std::optional<double> max_moved_fraction;
  std::optional<std::string> cap_by;  // "keys" (default), "bytes", "keys,bytes"
  // The version of the first intermediate step view (the others count up from it); none:
  // the versions between A's and B's (docs/plan.md, "Staged plans", "Versions").
  std::optional<std::uint64_t> step_versions;
  // What the plan folder holds besides moves.csv and summary.json.
  bool transitions = false;
  std::string svg;  // empty: no chart
  // From a placement file (its replica count), not from a view and keys.
  bool from_placement = false;
  // A plan to one replica of keys that had more is asked for (docs/plan.md, "Losing replicas").
  bool allow_single_copy = false;
};

// Every bound and combination of a plan's settings checked, before any view is involved.
struct ValidPlanSettings {
  PlanSettings given;
  std::uint64_t batch_size = 1000;
  ScheduleLimits limits;
  CapBy cap_by = CapBy::keys;

  // The placement options asked for, and which of them were given (contract §8).
  PlaceOptions asked() const;
  GivenSettings given_settings() const;
  // A plan job with the batches, rounds, outputs and placement set; the caller adds the keys,
  // the folder and the progress callback.
  PlanJob job(const PlanRequests& rules) const;
};
ValidPlanSettings check_plan_settings(const PlanSettings& settings);

// A plan between two views, ready to run: run_plan(rules, job), or run_staged_plan with
// staged_job() when staged().
struct ValidPlan {
  PlanRequests rules;
  ValidPlanSettings settings;

  bool staged() const { return settings.given.max_moved_fraction.has_value(); }
  PlanJob job() const { return settings.job(rules); }
  StagedPlanJob staged_job() const;
};

// The views are asked for (loaded, by the CLI) only once every setting is known to be good,
// so a bad setting is refused before any file is read. They must outlive the result.
using ViewPair = std::pair<const ClusterView*, const ClusterView*>;
ValidPlan check_plan(const PlanSettings& settings, const std::function<ViewPair()>& views);

// A plan from a placement file to the view `to` (asked for once the settings are good; it must
// outlive the job): the job, with the target's rule resolved.
PlacementPlanJob check_plan_from_placement(const PlanSettings& settings,
                                           const std::function<const ClusterView*()>& to);

}  // namespace hrw
