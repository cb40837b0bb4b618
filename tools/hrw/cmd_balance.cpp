// hrw balance: contract §9's balanced cuts for a key set, written as a cluster file (B with
// the cuts, everything else kept, version + 1 unless --version), with what the bound costs.
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/atomic_file.hpp"
#include "hrw/bulk_options.hpp"
#include "hrw/balance.hpp"
#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/process.hpp"
#include "hrw/thread_pool.hpp"
#include "hrw/view_json.hpp"

namespace hrw::cli {

namespace {

// --max-overload's upper end (docs/errors.md, "Options: ranges"): far beyond any useful
// tolerance (ε = 1 already lets a node hold twice its share).
inline constexpr double kMaxOverload = 1e6;

struct BalanceArgs {
  ClusterOptions cluster;
  std::string keys;
  std::string keys_format;
  std::vector<std::string> ignored_columns;
  std::string by = "keys";
  std::optional<double> max_overload;
  std::string out;
  std::optional<std::int64_t> version;
  std::string stats;
  bool quiet = false;
  unsigned threads = 0;
};

std::string stats_json(const ClusterView& view, const BalanceResult& r, const std::string& by,
                       double eps, std::int64_t version) {
  nlohmann::ordered_json out;
  out["from_version"] = view.version();
  out["version"] = version;
  out["by"] = by;
  out["max_overload"] = eps;
  out["keys"] = r.keys;
  out["total_load"] = r.total_load;
  out["passes"] = r.passes;
  out["displaced"] = r.displaced;
  out["overflow"] = r.overflow;
  auto& nodes = out["nodes"] = nlohmann::ordered_json::array();
  double peak_before = 0, peak_after = 0;
  for (std::uint32_t i = 0; i < view.size(); ++i) {
    const double target = view.share(i) * static_cast<double>(r.total_load);
    const double before = target > 0 ? static_cast<double>(r.load_before[i]) / target : 0;
    const double after = target > 0 ? static_cast<double>(r.load_after[i]) / target : 0;
    peak_before = std::max(peak_before, before);
    peak_after = std::max(peak_after, after);
    nodes.push_back({{"node", view.node(i).id}, {"cut", r.cuts[i]}, {"capacity", r.capacity[i]},
                     {"target", target}, {"load_before", r.load_before[i]},
                     {"load_after", r.load_after[i]}, {"load_over_target_before", before},
                     {"load_over_target_after", after}});
  }
  out["peak_load_over_target_before"] = peak_before;
  out["peak_load_over_target_after"] = peak_after;
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace

Runner add_balance(CLI::App& app) {
  auto args = std::make_shared<BalanceArgs>();
  CLI::App* sub = app.add_subcommand(
      "balance", "Capacity cuts (contract section 9) that bound every node's load: writes B with cuts");
  add_cluster_options(*sub, args->cluster);
  sub->add_option("--keys", args->keys, "Key file (lines, or CSV with key[,bytes][,requests]); - for stdin")
      ->required();
  add_ignore_columns(*sub, args->ignored_columns);
  sub->add_option("--keys-format", args->keys_format, "lines or csv (default: from the file name)")
      ->check(CLI::IsMember({"lines", "csv"}));
  sub->add_option("--by", args->by, "What a key weighs: keys (default), bytes or requests")
      ->check(CLI::IsMember({"keys", "bytes", "requests"}));
  add_real(*sub, "--max-overload", args->max_overload, {0, kMaxOverload, false},
           "Tolerance eps >= 0: capacity = floor((1 + eps) x share x total load); 0 to 1e6")
      ->required();
  sub->add_option("--out", args->out, "The balanced cluster file to write")->required();
  add_unsigned(*sub, "--version", args->version, 0, INT64_MAX,
               "Version of the written view (default: B's + 1)");
  sub->add_option("--stats", args->stats, "Write per-node loads before/after as JSON to this file");
  sub->add_flag("--quiet", args->quiet, "No summary on stderr");
  add_unsigned(*sub, "--threads", args->threads, Setting::thread_count, "Threads (0: all cores)");
  return [args, sub]() -> int {
    // First: oneTBB starts its workers while the views are read (thread_pool.hpp).
    const ThreadPool pool(args->threads);
    const double eps = *args->max_overload;  // range checked by the strict parser
    std::vector<NamedOutput> outputs = {{"--out", args->out}};
    if (sub->count("--stats")) outputs.push_back({"--stats", args->stats});
    check_outputs(outputs, {{"--cluster", args->cluster.cluster_file}, {"--keys", args->keys}});
    const ClusterView view = args->cluster.load();
    if (!args->version && view.version() == INT64_MAX)
      throw InputError(fmt::format("{}: version {} has no successor; give --version", view.source(),
                                   view.version()));
    const std::int64_t version = args->version ? *args->version : view.version() + 1;
    KeySource keys(args->keys,
                   args->keys_format.empty() ? key_format_for(args->keys) : parse_key_format(args->keys_format),
                   args->ignored_columns);
    BalanceOptions options;
    options.max_overload = eps;
    options.by = args->by == "bytes" ? LoadBy::bytes : args->by == "requests" ? LoadBy::requests : LoadBy::keys;
    options.threads = args->threads;
    const BalanceResult r = balance_cuts(view, keys, options);
    ClusterSpec spec = spec_with_cuts(view, r.cuts);
    spec.version = version;
    spec.hierarchy = std::nullopt;
    // Both outputs are written whole, then published together (atomic_file.hpp); the view
    // goes through the one serialiser (view_json.hpp), which writes each non-zero cut.
    AtomicFile out(args->out);
    out.write(view_json(spec));
    if (sub->count("--stats")) {
      AtomicFile stats(args->stats);
      stats.write(stats_json(view, r, args->by, eps, version));
      commit_all({&out, &stats});
    } else {
      out.commit();
    }
    if (!args->quiet) {
      double peak_before = 0, peak_after = 0;
      std::size_t cut_nodes = 0;
      for (std::uint32_t i = 0; i < view.size(); ++i) {
        const double target = view.share(i) * static_cast<double>(r.total_load);
        if (target > 0) {
          peak_before = std::max(peak_before, static_cast<double>(r.load_before[i]) / target);
          peak_after = std::max(peak_after, static_cast<double>(r.load_after[i]) / target);
        }
        cut_nodes += r.cuts[i] != 0;
      }
      eprint("balance v{} -> v{} by {}: {} keys, load {}, max overload {}; {} pass(es)\n",
             view.version(), version, args->by, r.keys, r.total_load, eps, r.passes);
      eprint("  peak load / target: {:.4f} plain, {:.4f} with cuts ({} of {} nodes cut)\n",
             peak_before, peak_after, cut_nodes, view.size());
      eprint("  keys not at their plain owner: {} ({:.3f}%); overflow keys: {}\n", r.displaced,
             r.keys ? 100.0 * static_cast<double>(r.displaced) / static_cast<double>(r.keys) : 0.0,
             r.overflow);
    }
    return 0;
  };
}

}  // namespace hrw::cli
