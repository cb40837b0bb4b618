// hrw check: is every key where the target view puts it? Exit 0 when all are, 3 when some
// are not (2 bad input, 1 internal), so a migration script can loop plan → execute → check.
#include <algorithm>

#include <fmt/core.h>

#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/plan.hpp"
#include "hrw/placement.hpp"
#include "hrw/process.hpp"
#include "hrw/progress_line.hpp"

namespace hrw::cli {

namespace {

struct CheckArgs {
  std::string cluster, placement, distinct;
  std::optional<std::uint32_t> replicas;
  bool partial = false;
  unsigned threads = 0;
};

// Keys (and bytes) not where the view puts them, then per node the replicas missing there
// and the replicas there that belong elsewhere. Node ids are bytes from the input: they are
// shown by the one quoting rule of messages (quote_for_message), so an id holding a newline
// or a control byte cannot forge a row; the path is shown as given, control bytes escaped.
std::string report(const PlanSummary& s) {
  const char* unit = s.replicas == 1 ? "keys" : "replicas";
  std::string out = fmt::format("check {} against v{}: {} keys, {} not where v{} puts them ({:.3f}%)",
                                one_line(s.from_placement), s.to_version, s.read.keys, s.moved.keys,
                                s.to_version, s.moved_fraction() * 100);
  if (s.has_bytes) out += fmt::format(", {} of {} bytes", s.moved.bytes, s.read.bytes);
  out += "\n";
  std::vector<std::string> ids;
  for (const NodeFlow& f : s.nodes) ids.push_back(quote_for_message(f.id));
  std::size_t width = 4;
  for (const std::string& id : ids) width = std::max(width, id.size());
  bool header = false;
  for (std::size_t n = 0; n < s.nodes.size(); ++n) {
    const NodeFlow& f = s.nodes[n];
    if (f.in.keys == 0 && f.out.keys == 0) continue;
    if (!header) {
      out += fmt::format("{:<{}}  {:>16}  {:>16}", "node", width, fmt::format("{} missing", unit),
                         fmt::format("{} extra", unit));
      out += s.has_bytes ? fmt::format("  {:>14}  {:>14}\n", "bytes missing", "bytes extra") : "\n";
      header = true;
    }
    out += fmt::format("{:<{}}  {:>16}  {:>16}", ids[n], width, f.in.keys, f.out.keys);
    out += s.has_bytes ? fmt::format("  {:>14}  {:>14}\n", f.in.bytes, f.out.bytes) : "\n";
  }
  return out;
}

}  // namespace

Runner add_check(CLI::App& app) {
  auto args = std::make_shared<CheckArgs>();
  CLI::App* sub = app.add_subcommand(
      "check", "Check a placement against a cluster view: exit 0 when every key is where the view "
               "puts it, 3 when some are not");
  sub->add_option("--cluster", args->cluster, "Target cluster view (JSON)")->required();
  sub->add_option("--placement", args->placement,
                  "Where the keys are: CSV key,owner or key,replica_1..R (optional bytes/requests), "
                  "or - for stdin")
      ->required();
  add_unsigned(*sub, "--replicas", args->replicas, 1, UINT32_MAX, "Replica count R (default: the placement's)");
  sub->add_option("--distinct", args->distinct, "Replicas must differ in this label (failure domain)");
  sub->add_flag("--partial", args->partial, "Accept fewer replicas than R when domains run out");
  add_unsigned(*sub, "--threads", args->threads, 0, kMaxThreads, "Worker threads, 0: all cores");
  return [args]() -> int {
    const ThreadLimit limit(args->threads);
    const ClusterView view(load_cluster_file(args->cluster));
    CheckJob job;
    job.current.path = args->placement;
    job.current.replicas = args->replicas;
    job.place.distinct_label = args->distinct;
    job.place.allow_partial = args->partial;
    job.place.threads = args->threads;
    // Contract §8: the view's rule decides R, distinct and partial; flags must agree.
    if (view.rule()) {
      job.place.replicas = job.current.replicas.value_or(view.rule()->replicas);
      job.place = options_for(view, job.place, {args->replicas.has_value(), !args->distinct.empty(), args->partial});
      job.current.replicas = job.place.replicas;
    }
    if (auto warning = distinct_warning(view, job.place)) eprint("hrw: warning: {}\n", *warning);
    ProgressLine progress;
    job.progress = progress.callback();
    const PlanSummary s = check_placement(view, job);
    progress.finish();
    fmt::print("{}", report(s));
    return s.moved.keys == 0 ? 0 : 3;
  };
}

}  // namespace hrw::cli
