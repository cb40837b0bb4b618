// Plans and checks from CURRENT.csv (plan/current_placement.hpp): its holders form a view A,
// so that pass 2 is an ordinary plan from A to B, read back from the spill: the same
// accounting, rows, R > 1 copy rules and schedules as run_plan.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <unordered_map>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "hrw/placement_reader.hpp"
#include "plan/current_placement.hpp"
#include "plan/plan_outputs.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

using plan_detail::CurrentPlacement;
using plan_detail::misplaced_header;

namespace {

// Pass 2: every key placed in B and accounted against where it is. `make_sink` is given
// the builder (for its ids) once the holders are known.
PlanSummary plan_current(const ClusterView& to, CurrentPlacement& current, PlaceOptions place,
                         bool given_replicas, std::uint64_t batch_size,
                         const std::function<MoveSink*(const PlanBuilder&)>& make_sink,
                         const std::function<void()>& after_chunk) {
  // A view with a rule places by it (contract §8), whatever the placement's replica
  // count (a plan back to a view of another rule is a migration); without one, B gets the
  // placement's count.
  if (!to.rule()) place.replicas = current.reader().replicas();
  PlaceOptions now_place;  // the placement's own: its replica columns, no rule
  now_place.replicas = current.reader().replicas();
  const ValidRequest request = [&] {
    try {
      return validate_request(to, place);
    } catch (const InputError& e) {
      // The replica count is the placement's (its replica columns), not a setting the caller
      // gave: the message names the file, never the setting.
      if (e.setting() != Setting::replica_count || given_replicas) throw;
      throw InputError(fmt::format("{}: the placement's replica count{}", current.reader().name(), e.detail()));
    }
  }();
  const BatchPlacer placer(request);
  PlanBuilder plan(current.view(), to, now_place, place, batch_size);
  plan.without_plain_plan();  // "from" is where keys are, not a view that has cuts to drop
  MoveSink* sink = make_sink(plan);
  current.rewind();
  KeyChunk chunk;
  Placement now, target;
  while (current.next(chunk, now)) {
    placer.place(chunk.keys, target);
    plan.add(chunk, now, target, sink);
    if (after_chunk) after_chunk();
  }
  PlanSummary s = plan.finish(current.keys(), current.reader().has_bytes(), current.reader().has_requests());
  s.from_placement = current.reader().name();
  s.ideal_fraction = current.ideal_fraction(to);
  s.expected_fraction.reset();  // the current holders are not a view rendezvous placed by
  return s;
}

}  // namespace

PlanSummary run_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job) {
  PlanFolder folder(job.out_dir);
  plan_detail::PlanOutputs out(folder, "", job.svg, job.batch_size, job.limits, {nullptr, &to, job.transitions});
  CurrentPlacement current(job.current, out.dir(), job.progress);
  if (job.limits.max_bytes_per_node && !current.reader().has_bytes())
    throw InputError(fmt::format("{}: a per-node byte limit needs a bytes column in the placement",
                                 current.reader().name()));
  if (job.limits.node_bandwidth && !current.reader().has_bytes())
    throw InputError(fmt::format("{}: a node bandwidth needs a bytes column in the placement",
                                 current.reader().name()));
  auto sink_for = [&](const PlanBuilder& plan) {
    return &out.start(plan.ids(), current.reader().has_bytes(), current.reader().has_requests());
  };
  PlanSummary summary = plan_current(to, current, job.place, job.current.replicas.has_value(), job.batch_size,
                                     sink_for, [&] { out.flush(); });
  out.publish(summary);
  folder.publish();
  return summary;
}

PlanSummary measure_plan_from_placement(const ClusterView& to, const PlacementPlanJob& job) {
  CurrentPlacement current(job.current, io::default_temp_folder(), job.progress);
  return plan_current(to, current, job.place, job.current.replicas.has_value(), job.batch_size,
                      [](const PlanBuilder&) { return nullptr; }, {});
}

PlaceOptions placement_plan_options(const ClusterView& to, const PlaceOptions& asked, GivenSettings given) {
  // The placement keeps its own replica columns, so a plan back to a view of another rule
  // (undo) is a migration.
  return to.rule() ? options_for(to, asked, given) : asked;
}

void apply_view_rule(const ClusterView& to, CheckJob& job, GivenSettings given) {
  if (!to.rule()) return;
  job.place.replicas = job.current.replicas.value_or(to.rule()->replicas);
  job.place = options_for(to, job.place, given);
  // The placement may hold more columns than the rule's R: a migration to a larger rule
  // and back (its undo) leaves them empty. Keys are compared as sets (check_placement).
}

namespace {

// check --cluster --misplaced: a row for every key whose holders, as a set, are not the
// view's (an owner that only changed rank is where it should be, as check counts it).
class MisplacedRows final : public MoveSink {
 public:
  MisplacedRows(AtomicFile& out, const std::vector<std::string>& ids, std::uint32_t columns)
      : out_(out), ids_(ids), columns_(columns), rows_(misplaced_header(columns)) {}
  void add_move(const KeyChunk&, std::size_t, std::uint32_t, std::uint32_t) override {}
  void key_changed(const KeyChunk& chunk, std::size_t i, std::span<const std::uint32_t> from,
                   std::span<const std::uint32_t> to) override {
    sorted_from_.assign(from.begin(), from.end());
    sorted_to_.assign(to.begin(), to.end());
    std::sort(sorted_from_.begin(), sorted_from_.end());
    std::sort(sorted_to_.begin(), sorted_to_.end());
    if (sorted_from_ == sorted_to_) return;
    csv::append_field(rows_, chunk.keys[i]);
    for (const std::span<const std::uint32_t> side : {to, from})  // expected (the view's), then actual
      for (std::uint32_t k = 0; k < columns_; ++k) {
        rows_ += ',';
        if (k < side.size() && side[k] < ids_.size()) csv::append_field(rows_, ids_[side[k]]);
      }
    rows_ += '\n';
    if (rows_.size() >= (std::size_t{1} << 20)) flush();
  }
  void flush() {
    out_.write(rows_);
    rows_.clear();
  }

 private:
  AtomicFile& out_;
  const std::vector<std::string>& ids_;
  std::uint32_t columns_;
  std::string rows_;
  std::vector<std::uint32_t> sorted_from_, sorted_to_;
};

}  // namespace

PlanSummary check_placement(const ClusterView& to, const CheckJob& job) {
  const std::string dir = job.temp_dir.empty() ? io::default_temp_folder() : job.temp_dir;
  std::optional<AtomicFile> misplaced_file;
  if (!job.misplaced.empty()) {
    // Every front end gets this: the report never replaces the placement it reports on.
    std::error_code ec;
    if (std::filesystem::equivalent(job.misplaced, job.current.path, ec))
      throw InputError(fmt::format("{}: is the placement file being checked: write the misplaced keys elsewhere",
                                   job.misplaced));
    misplaced_file.emplace(job.misplaced);  // refused before any reading if unwritable
  }
  CurrentPlacement current(job.current, dir, job.progress);
  if (to.rule() && current.reader().replicas() < job.place.replicas)
    throw InputError(fmt::format("{}: {} replica column(s), but the rule of {} places {} replicas",
                                 current.reader().name(), current.reader().replicas(), to.source(),
                                 job.place.replicas));
  std::optional<MisplacedRows> rows;
  PlanSummary s = plan_current(to, current, job.place, job.current.replicas.has_value(), 1,
                               [&](const PlanBuilder& plan) -> MoveSink* {
                                 if (!misplaced_file) return nullptr;
                                 // Room for both sets: the placement's and the view's (§8 rule).
                                 const std::uint32_t columns = std::max(current.reader().replicas(), job.place.replicas);
                                 return &rows.emplace(*misplaced_file, plan.ids(), columns);
                               },
                               {});
  if (misplaced_file) {
    rows->flush();
    misplaced_file->commit();
  }
  return s;
}

}  // namespace hrw
