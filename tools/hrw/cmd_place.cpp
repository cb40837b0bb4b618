// hrw place: the owner (or replicas) of every key of a file or stdin, as CSV in input order.
#include <fmt/core.h>

#include "hrw/bulk_options.hpp"
#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/process.hpp"
#include "hrw/progress_line.hpp"
#include "hrw/thread_pool.hpp"

namespace hrw::cli {

namespace {

struct PlaceArgs {
  ClusterOptions cluster;
  BulkOptions bulk;
  std::string out = "-";
  std::string stats;
};

}  // namespace

Runner add_place(CLI::App& app) {
  auto args = std::make_shared<PlaceArgs>();
  CLI::App* sub = app.add_subcommand(
      "place", "Place every key of a file: CSV key,owner (or key,replica_1..R) in input order");
  add_cluster_options(*sub, args->cluster);
  add_bulk_options(*sub, args->bulk);
  sub->add_option("--out", args->out, "Output CSV file (written gzip-compressed for *.gz, zstd for *.zst), or - for stdout (default)");
  sub->add_option("--stats", args->stats, "Write per-node stats as JSON to this file");
  return [args, sub]() -> int {
    // First: oneTBB starts its workers while the views are read (thread_pool.hpp).
    const ThreadPool pool(args->bulk.threads);
    std::vector<NamedOutput> outputs = {{"--out", args->out}};
    if (sub->count("--stats")) outputs.push_back({"--stats", args->stats});
    check_outputs(outputs, {{"--cluster", args->cluster.cluster_file}, {"--keys", args->bulk.keys}});
    const ClusterView view = args->cluster.load();
    PlaceJob job;
    job.keys = args->bulk.key_input();
    const ValidRequest request = request_for(view, args->bulk.place_options(), BulkOptions::given(*sub));
    warn_distinct(view, request.options());
    job.out = args->out;
    job.stats = args->stats;
    ProgressLine progress;
    if (!args->bulk.quiet) job.progress = progress.callback();
    bool has_bytes = false, has_requests = false;
    const PlaceStats stats = run_place(request, job, has_bytes, has_requests);
    progress.finish();
    if (!args->bulk.quiet) eprint("{}", place_stats_table(stats, has_bytes, has_requests));
    return 0;
  };
}

}  // namespace hrw::cli
