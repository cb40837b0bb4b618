#include "request/plan_settings.hpp"

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "request/setting_ranges.hpp"

namespace hrw {

namespace {

template <class T>
std::optional<T> checked(Setting setting, const std::optional<T>& value) {
  if (!value) return std::nullopt;
  if constexpr (std::is_floating_point_v<T>)
    return checked_real(setting, *value);
  else
    return checked_integer(setting, *value);
}

}  // namespace

ValidPlanSettings check_plan_settings(const PlanSettings& s) {
  ValidPlanSettings v;
  v.given = s;
  checked(Setting::replica_count, s.replicas);
  checked_integer(Setting::thread_count, s.threads);
  v.limits.max_moves_per_node = checked(Setting::max_moves_per_node, s.max_moves_per_node);
  v.limits.max_bytes_per_node = checked(Setting::max_bytes_per_node, s.max_bytes_per_node);
  v.limits.node_bandwidth = checked(Setting::node_bandwidth, s.node_bandwidth);
  checked(Setting::max_moved_fraction, s.max_moved_fraction);
  if (s.batch_size) {
    v.batch_size = checked_integer(Setting::batch_size, *s.batch_size);
    // Rounds replace batches.
    if (v.limits.any())
      throw InputError(Setting::batch_size, " excludes {}",
                       {v.limits.max_moves_per_node ? Setting::max_moves_per_node : Setting::max_bytes_per_node});
  }
  if (v.limits.node_bandwidth && !v.limits.any())
    throw InputError(Setting::node_bandwidth, ": estimates rounds: give {} or {}",
                     {Setting::max_moves_per_node, Setting::max_bytes_per_node});
  if (s.cap_by) {
    const std::optional<CapBy> cap = cap_by_named(*s.cap_by);
    if (!cap)
      throw InputError(Setting::cap_by,
                       fmt::format(": must be keys, bytes or keys,bytes, got {}", quote_for_message(*s.cap_by)));
    if (!s.max_moved_fraction) throw InputError(Setting::cap_by, " requires {}", {Setting::max_moved_fraction});
    v.cap_by = *cap;
  }
  checked(Setting::step_versions, s.step_versions);
  if (s.step_versions && !s.max_moved_fraction)
    throw InputError(Setting::step_versions, " requires {}", {Setting::max_moved_fraction});
  if (s.max_moved_fraction && !s.svg.empty())
    throw InputError(Setting::chart_file, " is not written for staged plans");
  if (s.max_moved_fraction && s.from_placement)
    throw InputError(Setting::placement_file, " excludes {}", {Setting::max_moved_fraction});
  return v;
}

PlaceOptions ValidPlanSettings::asked() const {
  PlaceOptions o;
  o.replicas = static_cast<std::uint32_t>(given.replicas.value_or(1));
  o.distinct_label = given.distinct.value_or("");
  o.allow_partial = given.partial;
  o.threads = static_cast<unsigned>(given.threads);
  o.engine = given.engine;
  return o;
}

GivenSettings ValidPlanSettings::given_settings() const {
  return {given.replicas.has_value(), given.distinct.has_value(), given.partial, given.allow_single_copy};
}

PlanJob ValidPlanSettings::job(const PlanRequests& rules) const {
  PlanJob job;
  job.place = rules.from.options();  // a staged plan validates each step's views itself
  if (!rules.same_rule()) job.place_to = rules.to.options();
  job.batch_size = batch_size;
  job.limits = limits;
  job.svg = given.svg;
  job.transitions = given.transitions;
  return job;
}

StagedPlanJob ValidPlan::staged_job() const {
  StagedPlanJob staged;
  staged.step = job();
  staged.max_moved_fraction = settings.given.max_moved_fraction.value_or(1.0);
  staged.cap_by = settings.cap_by;
  if (settings.given.step_versions) staged.first_step_version = static_cast<std::int64_t>(*settings.given.step_versions);
  return staged;
}

ValidPlan check_plan(const PlanSettings& settings, const std::function<ViewPair()>& views) {
  ValidPlanSettings valid = check_plan_settings(settings);
  const auto [from, to] = views();
  PlanRequests rules = options_for_plan(*from, *to, valid.asked(), valid.given_settings());
  return ValidPlan{std::move(rules), std::move(valid)};
}

PlacementPlanJob check_plan_from_placement(const PlanSettings& settings,
                                           const std::function<const ClusterView*()>& to) {
  PlanSettings s = settings;
  s.from_placement = true;
  const ValidPlanSettings valid = check_plan_settings(s);
  PlacementPlanJob job;
  if (s.replicas) job.current.replicas = static_cast<std::uint32_t>(*s.replicas);
  job.place = placement_plan_options(*to(), valid.asked(), valid.given_settings());
  job.batch_size = valid.batch_size;
  job.limits = valid.limits;
  job.svg = s.svg;
  job.transitions = s.transitions;
  return job;
}

}  // namespace hrw
