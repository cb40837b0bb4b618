// hrw check: is every key where the target view puts it? Exit 0 when all are, 3 when some
// are not (2 bad input, 1 internal), so a migration script can loop plan → execute → check.
// With --plan DIR --through-round N: is every key where the plan puts it after rounds 1..N?
#include <algorithm>
#include <filesystem>

#include <fmt/core.h>

#include "hrw/bulk_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"
#include "hrw/process.hpp"
#include "hrw/progress_line.hpp"
#include "hrw/thread_pool.hpp"

namespace hrw::cli {

namespace {

// Far beyond any plan's rounds or steps.
constexpr std::uint64_t kMaxRound = 1'000'000'000'000;

struct CheckArgs {
  std::string cluster, placement, distinct, plan, misplaced, format = "table";
  std::optional<std::string> hierarchy;
  std::optional<std::uint32_t> replicas;
  std::optional<std::uint64_t> through_round, through_step;
  std::vector<std::string> ignored_columns;
  bool partial = false, quiet = false;
  unsigned threads = 0;
};

int check_progress(const CheckArgs& a, ProgressLine& progress) {
  if (!a.cluster.empty()) throw InputError("check: give either --cluster or --plan, not both");
  if (!a.through_round && !a.through_step)
    throw InputError("--plan: give --through-round N (or --through-step S for a staged plan)");
  ProgressCheckJob job;
  job.plan_dir = a.plan;
  std::string step;
  const bool staged = is_staged_plan(a.plan);
  if (a.through_step) {
    if (!staged) throw InputError(fmt::format("--through-step: {} is not a staged plan (no steps folder)", a.plan));
    job.plan_dir = plan_step_dir(a.plan, *a.through_step);
    if (!std::filesystem::is_directory(job.plan_dir))
      throw InputError(fmt::format("--through-step: {} has no step {}", a.plan, *a.through_step));
    step = fmt::format(" step {}", *a.through_step);
  } else if (staged) {
    throw InputError(fmt::format("--plan: {} is a staged plan: give --through-step S", a.plan));
  }
  // A step given alone is executed whole.
  job.through_round = a.through_round;
  job.current.path = a.placement;
  job.current.replicas = a.replicas;
  job.current.ignored_columns = a.ignored_columns;
  job.place.distinct_label = a.distinct;
  job.place.allow_partial = a.partial;
  job.place.threads = a.threads;
  job.misplaced = a.misplaced;
  job.progress = progress.callback();
  const ProgressCheck c = check_plan_progress(job);
  progress.finish();
  if (!a.quiet) fmt::print("{}", a.format == "json" ? progress_check_json(c) : progress_check_text(c, step));
  return c.misplaced == 0 ? 0 : 3;
}

}  // namespace

Runner add_check(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand(
      "check", "Check a placement against a cluster view, or against a plan after some of its rounds: "
               "exit 0 when every key is where it should be, 3 when some are not");
  sub->add_option("--cluster", args->cluster, "Target cluster view (JSON)");
  sub->add_option("--plan", args->plan,
                  "Instead of --cluster: a plan folder (made with --transitions); the expected placement "
                  "is to.json's for the keys of rounds 1..N, from.json's for the others");
  add_unsigned(*sub, "--through-round", args->through_round, 0, kMaxRound,
               "With --plan: rounds (batches) 1..N are executed");
  add_unsigned(*sub, "--through-step", args->through_step, 1, kMaxRound,
               "With --plan of a staged plan: steps before S are executed, and S's rounds 1..N "
               "(--through-round; all of them when not given)");
  sub->add_option("--misplaced", args->misplaced,
                  "Write key,expected,actual (R > 1: expected_1..R,actual_1..R) for every key not where "
                  "the view (or the plan, with --plan) puts it");
  sub->add_option("--placement", args->placement,
                  "Where the keys are: CSV key,owner or key,replica_1..R (optional bytes/requests; plain, "
                  "gzip or zstd), or - for stdin")
      ->required();
  add_ignore_columns(*sub, args->ignored_columns);
  add_unsigned(*sub, "--replicas", args->replicas, Setting::replica_count, "Replica count R (default: the placement's)");
  sub->add_option("--distinct", args->distinct, "Replicas must differ in this label (failure domain)");
  sub->add_option("--hierarchy", args->hierarchy,
                  "Comma-separated hierarchy labels, top level first (overrides the cluster file's)");
  sub->add_flag("--partial", args->partial, "Accept fewer replicas than R when domains run out");
  add_unsigned(*sub, "--threads", args->threads, Setting::thread_count, "Worker threads (0: all cores)");
  sub->add_option("--format", args->format, "Report format: table (default) or json")
      ->check(CLI::IsMember({"table", "json"}));
  sub->add_flag("--quiet", args->quiet, "No report on stdout: the exit code tells");
  return [args, sub]() -> int {
    const ThreadPool pool(args->threads);
    if (!args->misplaced.empty())
      check_outputs({{"--misplaced", args->misplaced}},
                    {{"--placement", args->placement}, {"--cluster", args->cluster}});
    ProgressLine progress;
    if (!args->plan.empty()) {
      if (args->hierarchy) throw InputError("--hierarchy: with --plan the views are the plan's own");
      return check_progress(*args, progress);
    }
    if (args->cluster.empty()) throw InputError("check: give --cluster FILE or --plan DIR");
    for (auto [name, given] : {std::pair{"--through-round", args->through_round.has_value()},
                               std::pair{"--through-step", args->through_step.has_value()}})
      if (given) throw InputError(fmt::format("{} goes with --plan", name));
    ClusterSpec spec = load_cluster_file(args->cluster);
    if (args->hierarchy) apply_hierarchy_list(spec, *args->hierarchy);
    const ClusterView view(std::move(spec));
    CheckJob job;
    job.current.path = args->placement;
    job.current.replicas = args->replicas;
    job.current.ignored_columns = args->ignored_columns;
    job.misplaced = args->misplaced;
    job.place.distinct_label = args->distinct;
    job.place.allow_partial = args->partial;
    job.place.threads = args->threads;
    // Contract §8: the view's rule decides R, distinct and partial; flags must agree.
    apply_view_rule(view, job, {args->replicas.has_value(), !args->distinct.empty(), args->partial});
    if (auto warning = distinct_warning(view, job.place)) eprint("hrw: warning: {}\n", *warning);
    job.progress = progress.callback();
    const PlanSummary s = check_placement(view, job);
    progress.finish();
    if (!args->quiet) fmt::print("{}", args->format == "json" ? check_json(s) : check_text(s));
    return s.moved.keys == 0 ? 0 : 3;
  };
}

}  // namespace hrw::cli
