// hrw select: the audit command. One key, every node's rank and score, the owner marked.
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/numbers.hpp"
#include "hrw/process.hpp"
#include "hrw/select.hpp"

namespace hrw::cli {
namespace {

struct SelectArgs {
  std::string key;
  ClusterOptions cluster;
  std::uint32_t replicas = 0;  // 0: not asked for
  std::string distinct;
  bool partial = false;
  std::string format = "table";
};

// Hierarchical views: at each level, the buckets under the chosen parent by score, the
// chosen one starred; then the nodes of the chosen last-level bucket lead the ranking.
void print_path(const ClusterView& view, const Selection& selection) {
  const Hierarchy* h = view.hierarchy();
  if (!h) return;
  std::vector<std::uint32_t> candidates(h->level(0).size());
  for (std::uint32_t i = 0; i < candidates.size(); ++i) candidates[i] = i;
  for (std::size_t j = 0; j < h->depth(); ++j) {
    std::vector<reference::BucketScore> scored;
    for (std::uint32_t b : candidates)
      scored.push_back(reference::score_bucket(view, selection.key, j, b));
    std::sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
      return reference::bucket_ranks_before(view, x, y);
    });
    fmt::print("  level {} \"{}\": bucket, weight W, score u^(1/W)\n", j + 1, h->labels()[j]);
    const std::uint32_t chosen = selection.path[j].bucket;
    for (const auto& s : scored) {
      const Bucket& b = h->level(j)[s.bucket];
      fmt::print("  {} {}  {}  {:.17g}\n", s.bucket == chosen ? "*" : " ", b.name, b.weight,
                 s.score);
    }
    candidates = h->level(j)[chosen].children;
  }
}

int print_table(const ClusterView& view, const SelectArgs& a, const Selection& selection) {
  const auto& ranking = selection.ranking;
  fmt::print("key \"{}\"  seed \"{}\"  hash {}  version {}  {}\n", a.key, view.seed(),
             to_string(view.hash()), view.version(), view.weighted() ? "weighted" : "unweighted");
  print_path(view, selection);
  std::size_t width = 4;
  for (auto& n : view.nodes()) width = std::max(width, n.id.size());
  // Contract §9: with cuts, two more columns (each node's cut, and whether r clears it).
  const bool cuts = view.has_cuts();
  const std::string cut_head = cuts ? fmt::format("  {:>10}  {}", "cut", "clears") : "";
  if (view.weighted())
    fmt::print("  {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22}{}\n", "rank", "node", width, "fnv1a",
               "r", "weight", "score u^(1/w)", cut_head);
  else
    fmt::print("  {:>4}  {:<{}}  {:>10}  {:>10}{}\n", "rank", "node", width, "fnv1a", "score r",
               cut_head);
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const auto& s = ranking[i];
    const char* mark = s.node == selection.owner ? "*" : " ";
    const std::string cut_cols =
        cuts ? fmt::format("  {:>10}  {}", view.node(s.node).cut,
                           reference::clears(view, s) ? "yes" : "no")
             : "";
    if (view.weighted())
      fmt::print("{} {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22.17g}{}\n", mark, i + 1,
                 view.node(s.node).id, width, s.fnv, s.r, view.node(s.node).weight, s.score,
                 cut_cols);
    else
      fmt::print("{} {:>4}  {:<{}}  {:>10}  {:>10}{}\n", mark, i + 1, view.node(s.node).id, width,
                 s.fnv, s.r, cut_cols);
  }
  const bool owner_clears = reference::clears(view, reference::score_pair(view, a.key, selection.owner));
  fmt::print("owner: {}{}\n", view.node(selection.owner).id,
             owner_clears ? "" : "  [OVERFLOW: no node clears the key]");
  if (selection.replicas) {
    std::vector<std::string> ids;
    for (auto n : selection.replica_nodes) ids.push_back(view.node(n).id);
    fmt::print("replicas ({}{}): {}{}{}\n", selection.replicas,
               selection.distinct.empty() ? "" : ", distinct " + selection.distinct, fmt::join(ids, ", "),
               selection.partial ? "  [PARTIAL]" : "",
               selection.overflow ? "  [OVERFLOW: fewer than R clear the key]" : "");
  }
  return 0;
}

}  // namespace

Runner add_select(CLI::App& app) {
  auto args = std::make_shared<SelectArgs>();
  CLI::App* sub = app.add_subcommand("select", "Rank every node for one key (audit)");
  sub->add_option("key", args->key, "The key (bytes as given; may be empty)")->required();
  add_cluster_options(*sub, args->cluster);
  add_unsigned(*sub, "--replicas", args->replicas, 1, UINT32_MAX, "Replica count R, at most the node count");
  sub->add_option("--distinct", args->distinct, "Replicas must differ in this label (failure domain)");
  sub->add_flag("--partial", args->partial, "Accept fewer replicas than R when domains run out");
  sub->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  return [args, sub]() -> int {
    if (!args->distinct.empty() && args->replicas == 0) args->replicas = 1;
    const ClusterView view = args->cluster.load();
    const Selection selection =
        select_key(view, args->key, {args->replicas, args->distinct, args->partial});
    if (selection.warning) eprint("hrw: warning: {}\n", *selection.warning);
    if (args->format == "json") {
      fmt::print("{}\n", selection_json(view, selection));
      return 0;
    }
    return print_table(view, *args, selection);
  };
}

}  // namespace hrw::cli
