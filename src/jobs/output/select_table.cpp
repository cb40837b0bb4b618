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
  if (view.weighted())
    out += fmt::format("  {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22}\n", "rank", "node", width, "fnv1a",
               "r", "weight", "score u^(1/w)");
  else
    out += fmt::format("  {:>4}  {:<{}}  {:>10}  {:>10}\n", "rank", "node", width, "fnv1a", "score r");
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const auto& s = ranking[i];
    const char* mark = i == 0 ? "*" : " ";
    if (view.weighted())
      out += fmt::format("{} {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22.17g}\n", mark, i + 1,
                 view.node(s.node).id, width, s.fnv, s.r, view.node(s.node).weight, s.score);
    else
      out += fmt::format("{} {:>4}  {:<{}}  {:>10}  {:>10}\n", mark, i + 1, view.node(s.node).id, width,
                 s.fnv, s.r);
  }
  out += fmt::format("owner: {}\n", view.node(ranking.front().node).id);
  if (selection.replicas) {
    std::vector<std::string> ids;
    for (auto n : selection.replica_nodes) ids.push_back(view.node(n).id);
    out += fmt::format("replicas ({}{}): {}{}\n", selection.replicas,
               selection.distinct.empty() ? "" : ", distinct " + selection.distinct, fmt::join(ids, ", "),
               selection.partial ? "  [PARTIAL]" : "");
  }
  return out;
}

}  // namespace hrw
