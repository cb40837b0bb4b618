// hrw compare: rendezvous against modulo, ring, jump, Maglev, slots and bounded loads on the
// user's own membership change (default: the classic 1e6 keys, 10 -> 11 nodes).
#include <algorithm>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "hrw/atomic_file.hpp"
#include "hrw/bulk_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/compare.hpp"
#include "hrw/errors.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output_paths.hpp"

namespace hrw::cli {
namespace {

// Every scheme holds all sampled keys and their placements in memory, and the ring holds
// nodes x vnodes points: these bounds keep a run's memory within reason.
constexpr std::uint64_t kMaxSample = 100'000'000;
constexpr std::uint64_t kMaxNodes = 10'000;
constexpr std::uint64_t kMaxVnodes = 1'000;
// From c = the node count on, the cap is at least every key: no bound at all.
constexpr double kMaxLoadFactor = 10'000;

struct CompareArgs {
  std::string keys_file;
  std::vector<std::string> ignored_columns;
  std::size_t sample = 1000000;
  std::size_t from_count = 10;
  std::size_t to_count = 11;
  std::string from_cluster;
  std::string to_cluster;
  compare::Options options;
  std::string format = "table";
  std::string svg_file;
  std::optional<std::string> hierarchy;  // overrides both files' (contract §6)
};

compare::NodeList load_view(const std::string& cluster_file, std::size_t count,
                            const char* count_flag, const std::optional<std::string>& hierarchy) {
  if (!cluster_file.empty()) {
    ClusterSpec spec = load_cluster_file(cluster_file);
    if (hierarchy) apply_hierarchy_list(spec, *hierarchy);
    // Contract §8 (docs/compare.md, "Rules"): every scheme is compared on owners; a rule
    // that places owners (replicas 1, no distinct) is honoured, any other is refused.
    if (spec.rule && (spec.rule->replicas != 1 || !spec.rule->distinct.empty()))
      throw InputError(fmt::format("{}: compare measures owners (R = 1) for every scheme, and this view places "
                                   "by its rule ({}); compare a copy without the rule, or plan it with hrw plan",
                                   cluster_file, describe(*spec.rule)));
    // Likewise capacity cuts (contract §9): no other scheme has them, and comparing the
    // view without them would not be this view.
    if (std::any_of(spec.nodes.begin(), spec.nodes.end(), [](const NodeSpec& n) { return n.cut != 0; }))
      throw InputError(fmt::format("{}: this view has capacity cuts (contract section 9), which compare does not "
                                   "place by (its hrw-cuts row makes its own); compare a copy without them, or plan "
                                   "it with hrw plan",
                                   cluster_file));
    return compare::node_list(spec);
  }
  if (hierarchy) throw InputError("compare: --hierarchy needs --from-cluster/--to-cluster (labelled nodes)");
  return compare::numbered_nodes(count, fmt::format("{} {}", count_flag, count));
}

void write_file(const std::string& path, const std::string& content) {
  AtomicFile out(path);
  out.write(content);
  out.commit();
}

int run_compare(const CompareArgs& a, bool svg_given) {
  std::vector<NamedOutput> outputs = {{"the report", "-"}};
  if (svg_given) outputs.push_back({"--svg", a.svg_file});
  check_outputs(outputs, {{"--keys", a.keys_file}, {"--from-cluster", a.from_cluster}, {"--to-cluster", a.to_cluster}});
  const compare::NodeList from = load_view(a.from_cluster, a.from_count, "--from", a.hierarchy);
  const compare::NodeList to = load_view(a.to_cluster, a.to_count, "--to", a.hierarchy);
  compare::validate(a.options, std::max(from.size(), to.size()));  // before reading keys
  const KeyBatch keys =
      a.keys_file.empty() ? compare::sample_keys(a.sample) : compare::read_key_file(a.keys_file, a.ignored_columns);
  const compare::Report report = compare::run(from, to, keys, a.options);
  if (!a.svg_file.empty()) write_file(a.svg_file, compare::format_svg(report));
  if (a.format == "json")
    fmt::print("{}", compare::format_json(report));
  else if (a.format == "csv")
    fmt::print("{}", compare::format_csv(report));
  else
    fmt::print("{}", compare::format_table(report));
  return 0;
}

}  // namespace

Runner add_compare(CLI::App& app) {
  auto args = std::make_shared<CompareArgs>();
  CLI::App* sub = app.add_subcommand(
      "compare", "Compare rendezvous with modulo, ring, jump, Maglev, slots and bounded loads");
  auto* keys = sub->add_option("--keys", args->keys_file, "Key file: one key per line, or CSV for *.csv (- for stdin)");
  auto* sample = add_unsigned(*sub, "--sample", args->sample, 1, kMaxSample, "Generate N keys key-0.. (default 1e6)");
  keys->excludes(sample);
  add_ignore_columns(*sub, args->ignored_columns)->needs(keys);
  auto* from = add_unsigned(*sub, "--from", args->from_count, 1, kMaxNodes, "Nodes before: node-0..node-(N-1) (default 10)");
  auto* from_file = sub->add_option("--from-cluster", args->from_cluster, "Cluster JSON before the change");
  from->excludes(from_file);
  auto* to = add_unsigned(*sub, "--to", args->to_count, 1, kMaxNodes, "Nodes after: node-0..node-(N-1) (default 11)");
  auto* to_file = sub->add_option("--to-cluster", args->to_cluster, "Cluster JSON after the change");
  to->excludes(to_file);
  add_unsigned(*sub, "--vnodes", args->options.vnodes, 1, kMaxVnodes, "Ring: virtual nodes per server (default 100)");
  add_unsigned(*sub, "--maglev-size", args->options.maglev_size, 1, compare::kMaxMaglevSize,
               "Maglev: lookup table size M, prime (default 65537)");
  add_real(*sub, "--load-factor", args->options.load_factor, {1, kMaxLoadFactor, true},
           "Bounded loads: cap = ceil(c x fair load), 1 < c <= 10000 (default 1.25)");
  sub->add_option("--format", args->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "json", "csv"}));
  sub->add_option("--svg", args->svg_file, "Also write a two-panel SVG chart to FILE");
  sub->add_option("--hierarchy", args->hierarchy,
                  "Comma-separated hierarchy labels for both cluster files (adds the hrw-tree row)");
  return [args, sub]() -> int { return run_compare(*args, sub->count("--svg") > 0); };
}

}  // namespace hrw::cli
