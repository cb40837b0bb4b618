// hrw select's table (output.hpp): one key's ranking as the CLI prints it.
#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "hrw/hierarchy.hpp"
#include "hrw/output.hpp"

namespace hrw {
namespace {

// Hierarchical views: at each level, the buckets under the chosen parent by score, the
// chosen one starred; then the nodes of the chosen last-level bucket lead the ranking.
void append_path(std::string& out, const ClusterView& view, const Selection& selection) {
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
    out += fmt::format("  level {} \"{}\": bucket, weight W, score u^(1/W)\n", j + 1, h->labels()[j]);
    const std::uint32_t chosen = selection.path[j].bucket;
    for (const auto& s : scored) {
      const Bucket& b = h->level(j)[s.bucket];
      out += fmt::format("  {} {}  {}  {:.17g}\n", s.bucket == chosen ? "*" : " ", b.name, b.weight,
                 s.score);
    }
    candidates = h->level(j)[chosen].children;
  }
}

}  // namespace

std::string selection_table(const ClusterView& view, const Selection& selection) {
  std::string out;
  const auto& ranking = selection.ranking;
  out += fmt::format("key \"{}\"  seed \"{}\"  hash {}  version {}  {}\n", selection.key, view.seed(),
             to_string(view.hash()), view.version(), view.weighted() ? "weighted" : "unweighted");
  append_path(out, view, selection);
  std::size_t width = 4;
  for (auto& n : view.nodes()) width = std::max(width, n.id.size());
  // Contract §9: with cuts, two more columns (each node's cut, and whether r clears it).
  const bool cuts = view.has_cuts();
  const std::string cut_head = cuts ? fmt::format("  {:>10}  {}", "cut", "clears") : "";
  if (view.weighted())
    out += fmt::format("  {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22}{}\n", "rank", "node", width, "fnv1a",
                       "r", "weight", "score u^(1/w)", cut_head);
  else
    out += fmt::format("  {:>4}  {:<{}}  {:>10}  {:>10}{}\n", "rank", "node", width, "fnv1a", "score r",
                       cut_head);
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const auto& s = ranking[i];
    const char* mark = s.node == selection.owner ? "*" : " ";
    const std::string cut_cols =
        cuts ? fmt::format("  {:>10}  {}", view.node(s.node).cut, reference::clears(view, s) ? "yes" : "no")
             : "";
    if (view.weighted())
      out += fmt::format("{} {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22.17g}{}\n", mark, i + 1,
                         view.node(s.node).id, width, s.fnv, s.r, view.node(s.node).weight, s.score, cut_cols);
    else
      out += fmt::format("{} {:>4}  {:<{}}  {:>10}  {:>10}{}\n", mark, i + 1, view.node(s.node).id, width,
                         s.fnv, s.r, cut_cols);
  }
  const bool owner_clears =
      reference::clears(view, reference::score_pair(view, selection.key, selection.owner));
  out += fmt::format("owner: {}{}\n", view.node(selection.owner).id,
                     owner_clears ? "" : "  [OVERFLOW: no node clears the key]");
  if (selection.replicas) {
    std::vector<std::string> ids;
    for (auto n : selection.replica_nodes) ids.push_back(view.node(n).id);
    out += fmt::format("replicas ({}{}): {}{}{}\n", selection.replicas,
                       selection.distinct.empty() ? "" : ", distinct " + selection.distinct, fmt::join(ids, ", "),
                       selection.partial ? "  [PARTIAL]" : "",
                       selection.overflow ? "  [OVERFLOW: fewer than R clear the key]" : "");
  }
  return out;
}

}  // namespace hrw
