#include "hrw/cluster_options.hpp"

#include "hrw/errors.hpp"
#include "hrw/process.hpp"

namespace hrw::cli {

void add_cluster_options(CLI::App& sub, ClusterOptions& o) {
  auto* file = sub.add_option("--cluster", o.cluster_file, "Cluster view JSON file");
  auto* nodes = sub.add_option("--nodes", o.node_list, "Comma-separated node ids");
  file->excludes(nodes);
  sub.add_option("--seed", o.seed, "Cluster seed (overrides the file's)");
  sub.add_option("--hash", o.hash, "fnv1a-fmix (default) or fnv1a (overrides the file's)");
  sub.add_option("--weights", o.weights, "Comma-separated weights, one per node, in order");
  sub.add_option("--hierarchy", o.hierarchy,
                 "Comma-separated hierarchy labels, top level first (overrides the file's)");
}

ClusterView ClusterOptions::load() const {
  if (cluster_file.empty() && node_list.empty())
    throw InputError("no nodes: give --nodes ID,ID,... or --cluster FILE");
  ClusterSpec spec =
      cluster_file.empty() ? cluster_from_id_list(node_list) : load_cluster_file(cluster_file);
  if (cluster_file.empty()) spec.source = "--nodes";  // messages name the flag, not "node list"
  if (seed) spec.seed = *seed;
  if (hash) spec.hash = parse_hash_mode(*hash, "--hash");
  if (weights) apply_weight_list(spec, *weights);
  if (hierarchy) apply_hierarchy_list(spec, *hierarchy);
  return ClusterView(std::move(spec));
}

ValidRequest request_for(const ClusterView& view, const PlaceOptions& flags, GivenSettings given) {
  return validate_request(view, options_for(view, flags, given));
}

void warn_distinct(const ClusterView& view, const PlaceOptions& options) {
  if (auto warning = distinct_warning(view, options)) eprint("hrw: warning: {}\n", *warning);
}

}  // namespace hrw::cli
