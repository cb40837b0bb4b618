// hrw plan: which keys move between two versioned views, in batches, with the accounting
// an operator needs (docs/plan.md).
#include <optional>
#include <utility>

#include <fmt/core.h>

#include "hrw/bulk_options.hpp"
#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/process.hpp"
#include "hrw/progress_line.hpp"
#include "hrw/thread_pool.hpp"

namespace hrw::cli {

namespace {

// Far beyond any real batch, and small enough that counting batches cannot overflow.
constexpr std::uint64_t kMaxBatchSize = 1'000'000'000'000;

struct PlanArgs {
  std::string from, to;
  std::string from_placement;
  bool replicas_given = false;
  BulkOptions bulk;
  std::uint64_t batch_size = 1000;
  std::string out_dir;
  std::string svg;
  ScheduleLimits limits;
  std::optional<double> max_moved_fraction;
  std::string cap_by = "keys";
  bool transitions = false;
  std::optional<std::string> hierarchy;  // overrides both views' (contract §6)
};

ClusterView load_view(const std::string& path, const PlanArgs& a) {
  ClusterSpec spec = load_cluster_file(path);
  if (a.hierarchy) apply_hierarchy_list(spec, *a.hierarchy);
  return ClusterView(std::move(spec));
}

int plan_from_placement(const PlanArgs& a, GivenSettings given) {
  const ClusterView to(load_view(a.to, a));
  PlacementPlanJob job;
  job.current = {a.from_placement, std::nullopt, a.bulk.key_input().chunk_keys};
  if (a.replicas_given) job.current.replicas = a.bulk.replicas;
  job.place = a.bulk.place_options();
  job.place = placement_plan_options(to, job.place, given);  // contract §8
  warn_distinct(to, job.place);
  job.batch_size = a.batch_size;
  job.out_dir = a.out_dir;
  job.svg = a.svg;
  job.limits = a.limits;
  job.transitions = a.transitions;
  ProgressLine progress;
  if (!a.bulk.quiet) job.progress = progress.callback();
  const PlanSummary summary = run_plan_from_placement(to, job);
  progress.finish();
  if (!a.bulk.quiet) eprint("{}", summary_text(summary));
  return 0;
}

}  // namespace

Runner add_plan(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  CLI::App* sub = app.add_subcommand(
      "plan", "Migration plan between two cluster views: DIR/moves.csv and DIR/summary.json");
  sub->footer(
      "Views with the same seed, hash mode and rank rule (both weighted or both not) are\n"
      "placed together: one pass over the union of their node ids per key. Otherwise each\n"
      "key is placed twice, once per view (same results, about twice the placement time).");
  sub->add_option("--from", args->from, "Source cluster view (JSON, with version)");
  auto* from_placement = sub->add_option("--from-placement", args->from_placement,
                  "Instead of --from and --keys: where every key is now (CSV key,owner or "
                  "key,replica_1..R, optional bytes/requests), e.g. after a partial migration");
  sub->add_option("--to", args->to, "Target cluster view (JSON, with version)")->required();
  add_bulk_options(*sub, args->bulk);
  sub->add_option("--hierarchy", args->hierarchy,
                  "Comma-separated hierarchy labels, top level first, for both views (overrides the files')");
  sub->get_option("--keys")->required(false);  // not with --from-placement
  auto* batch_size = add_unsigned(*sub, "--batch-size", args->batch_size, 1, kMaxBatchSize,
               "Rows per batch of moves.csv (default 1000)");
  sub->add_option("--out", args->out_dir, "Output folder (created if missing)")->required();
  auto* svg = sub->add_option("--svg", args->svg, "Also write a per-node flow chart (SVG) to this file");
  auto* max_moves = add_unsigned(*sub, "--max-moves-per-node", args->limits.max_moves_per_node, 1, UINT64_MAX,
               "Rounds instead of batches: each node sends at most K moves and receives at most "
               "K per round (the fewest rounds possible)");
  auto* max_bytes = add_unsigned(*sub, "--max-bytes-per-node", args->limits.max_bytes_per_node, 1, UINT64_MAX,
               "Rounds instead of batches: each node sends at most B bytes and receives at most B "
               "per round (bytes column of the keys; a larger key gets a round of its own)");
  auto* fraction = add_real(*sub, "--max-moved-fraction", args->max_moved_fraction, {0, 1, true},
           "Staged plan: steps DIR/steps/NN/ (view.json, moves.csv, summary.json), each moving "
           "at most F (0 < F <= 1) of the keys or bytes, measured on the keys");
  add_unsigned(*sub, "--node-bandwidth", args->limits.node_bandwidth, 1, 1'000'000'000'000'000,
               "Bytes per second one node sends or receives: estimates each round's time (its busiest "
               "node's bytes / bandwidth) into summary.json and stderr; needs rounds and a bytes column");
  auto* cap_by = sub->add_option("--cap-by", args->cap_by,
                                 "What --max-moved-fraction caps: keys (default), bytes, or keys,bytes (both)");
  sub->add_flag("--transitions", args->transitions,
                "Also write DIR/transitions.csv (batch,key,action,node,source): every copy, switch and "
                "retire in execution order");
  // Every option is honoured or refused (docs/plan.md, "Options that go together"): the
  // combinations that would be ignored are declared here, where the options are, and CLI11
  // refuses them in one line ("--cap-by requires --max-moved-fraction", "--batch-size
  // excludes --max-moves-per-node") before anything is read.
  cap_by->needs(fraction);
  batch_size->excludes(max_moves)->excludes(max_bytes);  // rounds replace batches
  from_placement->excludes(fraction)->excludes(sub->get_option("--keys-format"));
  return [args, sub]() -> int {
    // First: oneTBB starts its workers while the views are read (thread_pool.hpp).
    const ThreadPool pool(args->bulk.threads);
    const std::optional<CapBy> cap_by = cap_by_named(args->cap_by);
    if (!cap_by)
      throw InputError(fmt::format("--cap-by: must be keys, bytes or keys,bytes, got {}", quote_for_message(args->cap_by)));
    if (args->limits.node_bandwidth && !args->limits.any())
      throw InputError("--node-bandwidth: estimates rounds: give --max-moves-per-node or --max-bytes-per-node");
    std::vector<NamedOutput> outputs = {{"--out", args->out_dir, true},
                                        {"--out", args->out_dir + "/moves.csv"},
                                        {"--out", args->out_dir + "/summary.json"},
                                        {"--out", args->out_dir + "/from.json"},
                                        {"--out", args->out_dir + "/to.json"}};
    if (args->transitions) outputs.push_back({"--out", args->out_dir + "/transitions.csv"});
    if (sub->count("--svg")) outputs.push_back({"--svg", args->svg});
    check_outputs(outputs, {{"--from", args->from},
                            {"--to", args->to},
                            {"--keys", args->bulk.keys},
                            {"--from-placement", args->from_placement}});
    if (args->from.empty() == args->from_placement.empty())
      throw InputError("plan: give either --from (with --keys) or --from-placement");
    if (args->from_placement.empty() == args->bulk.keys.empty())
      throw InputError(args->from.empty() ? "plan: --keys goes with --from, not with --from-placement"
                                          : "plan: --from needs --keys");
    if (!args->from_placement.empty()) {
      args->replicas_given = sub->count("--replicas") > 0;
      return plan_from_placement(*args, BulkOptions::given(*sub));
    }
    const ClusterView from(load_view(args->from, *args));
    const ClusterView to(load_view(args->to, *args));
    // Contract §8: each view places by its rule (flags agreeing), or by the flags.
    const GivenSettings given = BulkOptions::given(*sub);
    const PlanRequests rules = options_for_plan(from, to, args->bulk.place_options(), given);
    warn_distinct(from, rules.from.options());
    warn_distinct(to, rules.to.options());
    // A staged plan refuses such views in one line of its own: no warning before it.
    if (!args->max_moved_fraction)
      if (auto warning = incompatibility_warning(from, to)) eprint("hrw: {}\n", *warning);
    PlanJob job;
    job.keys = args->bulk.key_input();
    job.place = rules.from.options();
    if (!rules.same_rule()) job.place_to = rules.to.options();
    job.batch_size = args->batch_size;
    job.out_dir = args->out_dir;
    job.svg = args->svg;
    job.limits = args->limits;
    job.transitions = args->transitions;
    ProgressLine progress;
    if (!args->bulk.quiet) job.progress = progress.callback();
    if (args->max_moved_fraction) {
      if (!job.svg.empty()) throw InputError("plan: --svg is not written for staged plans");
      StagedPlanJob staged;
      staged.step = job;
      staged.max_moved_fraction = *args->max_moved_fraction;
      staged.cap_by = *cap_by;
      const StagedPlan plan = run_staged_plan(from, to, staged);
      progress.finish();
      if (!args->bulk.quiet) eprint("{}", staged_summary_text(plan));
      return 0;
    }
    const PlanSummary summary = run_plan(rules, job);
    progress.finish();
    if (!args->bulk.quiet) eprint("{}", summary_text(summary));
    return 0;
  };
}

}  // namespace hrw::cli
