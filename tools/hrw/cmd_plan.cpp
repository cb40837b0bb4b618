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
#include "request/plan_settings.hpp"

namespace hrw::cli {

namespace {

// The command line's words for a plan: the inputs and outputs it names, and the settings
// that go through the plan's front door (request/plan_settings.hpp) as they were given.
struct PlanArgs {
  std::string from, to;
  std::string from_placement;
  BulkOptions bulk;
  PlanSettings settings;
  std::string out_dir;
  std::optional<std::string> hierarchy;  // overrides both views' (contract §6)

  // The settings the front door checks; the placement flags counted as given or not (§8).
  PlanSettings given(const CLI::App& sub) const {
    PlanSettings s = settings;
    if (sub.count("--replicas")) s.replicas = bulk.replicas;
    if (sub.count("--distinct")) s.distinct = bulk.distinct;
    s.partial = bulk.partial;
    s.threads = bulk.threads;
    return s;
  }
};

ClusterView load_view(const std::string& path, const PlanArgs& a) {
  ClusterSpec spec = load_cluster_file(path);
  if (a.hierarchy) apply_hierarchy_list(spec, *a.hierarchy);
  return ClusterView(std::move(spec));
}

int plan_from_placement(const PlanArgs& a, const PlanSettings& settings) {
  std::optional<ClusterView> loaded;
  PlacementPlanJob job = check_plan_from_placement(settings, [&] { return &loaded.emplace(load_view(a.to, a)); });
  const ClusterView& to = *loaded;
  job.current.path = a.from_placement;
  job.current.chunk_keys = a.bulk.key_input().chunk_keys;
  job.current.ignored_columns = a.bulk.ignored_columns;
  warn_distinct(to, job.place);
  job.out_dir = a.out_dir;
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
  PlanSettings& s = args->settings;
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
  add_unsigned(*sub, "--batch-size", s.batch_size, Setting::batch_size, "Rows per batch of moves.csv (default 1000)");
  sub->add_option("--out", args->out_dir, "Output folder (created if missing)")->required();
  sub->add_option("--svg", s.svg, "Also write a per-node flow chart (SVG) to this file");
  add_unsigned(*sub, "--max-moves-per-node", s.max_moves_per_node, Setting::max_moves_per_node,
               "Rounds instead of batches: each node sends at most K moves and receives at most "
               "K per round (the fewest rounds possible)");
  add_unsigned(*sub, "--max-bytes-per-node", s.max_bytes_per_node, Setting::max_bytes_per_node,
               "Rounds instead of batches: each node sends at most B bytes and receives at most B "
               "per round (bytes column of the keys; a larger key gets a round of its own)");
  add_real(*sub, "--max-moved-fraction", s.max_moved_fraction, Setting::max_moved_fraction,
           "Staged plan: steps DIR/steps/NN/ (view.json, moves.csv, summary.json), each moving "
           "at most F (0 < F <= 1) of the keys or bytes, measured on the keys");
  add_unsigned(*sub, "--node-bandwidth", s.node_bandwidth, Setting::node_bandwidth,
               "Bytes per second one node sends or receives: estimates each round's time (its busiest "
               "node's bytes / bandwidth) into summary.json and stderr; needs rounds and a bytes column");
  sub->add_option("--cap-by", s.cap_by, "What --max-moved-fraction caps: keys (default), bytes, or keys,bytes (both)");
  add_unsigned(*sub, "--step-versions", s.step_versions, Setting::step_versions,
               "Staged plan: the version of the first intermediate step view, the next ones count up from "
               "it (default: the versions between A's and B's); the last step is B, under B's version");
  sub->add_flag("--transitions", s.transitions,
                "Also write DIR/transitions.csv (batch,key,action,node,source): every copy, switch and "
                "retire in execution order");
  sub->add_flag("--allow-single-copy", s.allow_single_copy,
                "Accept a plan that leaves one replica of keys the source view keeps more of (refused "
                "otherwise)");
  // Which settings go together is the front door's to check (docs/plan.md, "Options that go
  // together"); which inputs go together is the command line's.
  from_placement->excludes(sub->get_option("--keys-format"));
  return [args, sub]() -> int {
    // First: oneTBB starts its workers while the views are read (thread_pool.hpp).
    const ThreadPool pool(args->bulk.threads);
    PlanSettings settings = args->given(*sub);
    settings.from_placement = !args->from_placement.empty();
    std::vector<NamedOutput> outputs = {{"--out", args->out_dir, true},
                                        {"--out", args->out_dir + "/moves.csv"},
                                        {"--out", args->out_dir + "/summary.json"},
                                        {"--out", args->out_dir + "/from.json"},
                                        {"--out", args->out_dir + "/to.json"}};
    if (settings.transitions) outputs.push_back({"--out", args->out_dir + "/transitions.csv"});
    if (sub->count("--svg")) outputs.push_back({"--svg", settings.svg});
    check_outputs(outputs, {{"--from", args->from},
                            {"--to", args->to},
                            {"--keys", args->bulk.keys},
                            {"--from-placement", args->from_placement}});
    if (args->from.empty() == args->from_placement.empty())
      throw InputError("plan: give either --from (with --keys) or --from-placement");
    if (args->from_placement.empty() == args->bulk.keys.empty())
      throw InputError(args->from.empty() ? "plan: --keys goes with --from, not with --from-placement"
                                          : "plan: --from needs --keys");
    if (settings.from_placement) return plan_from_placement(*args, settings);
    std::optional<ClusterView> from, to;
    const ValidPlan plan = check_plan(settings, [&] {
      from.emplace(load_view(args->from, *args));
      to.emplace(load_view(args->to, *args));
      return ViewPair{&*from, &*to};
    });
    warn_distinct(*from, plan.rules.from.options());
    warn_distinct(*to, plan.rules.to.options());
    // A staged plan refuses such views in one line of its own: no warning before it.
    if (!plan.staged())
      if (auto warning = incompatibility_warning(*from, *to)) eprint("hrw: {}\n", *warning);
    if (auto warning = replica_loss_warning(*from, *to, plan.rules)) eprint("hrw: {}\n", *warning);
    ProgressLine progress;
    const ProgressCallback on_progress = args->bulk.quiet ? ProgressCallback{} : progress.callback();
    if (plan.staged()) {
      StagedPlanJob staged = plan.staged_job();
      staged.step.keys = args->bulk.key_input();
      staged.step.out_dir = args->out_dir;
      staged.step.progress = on_progress;
      const StagedPlan result = run_staged_plan(*from, *to, staged);
      progress.finish();
      if (!args->bulk.quiet) eprint("{}", staged_summary_text(result));
      return 0;
    }
    PlanJob job = plan.job();
    job.keys = args->bulk.key_input();
    job.out_dir = args->out_dir;
    job.progress = on_progress;
    const PlanSummary summary = run_plan(plan.rules, job);
    progress.finish();
    if (!args->bulk.quiet) eprint("{}", summary_text(summary));
    return 0;
  };
}

}  // namespace hrw::cli
