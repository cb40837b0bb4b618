// hrw select: the audit command. One key, every node's rank and score, the owner marked.
#include <optional>
#include <string>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "hrw/cluster_options.hpp"
#include "hrw/commands.hpp"
#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/numbers.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"

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

std::vector<std::uint32_t> chosen_replicas(const ClusterView& view, const SelectArgs& a,
                                           bool& partial) {
  partial = false;
  if (a.replicas == 0) return {};
  PlaceOptions request;
  request.replicas = a.replicas;
  request.distinct_label = a.distinct;
  request.allow_partial = a.partial;
  validate_request(view, request);
  if (a.distinct.empty()) return reference::top_r(view, a.key, a.replicas);
  auto d = reference::top_r_distinct(view, a.key, a.replicas, a.distinct, a.partial);
  partial = d.partial;
  return d.nodes;
}

int print_json(const ClusterView& view, const SelectArgs& a,
               const std::vector<reference::PairScore>& ranking,
               const std::vector<std::uint32_t>& replicas, bool partial) {
  nlohmann::ordered_json out;
  out["key"] = a.key;
  out["seed"] = view.seed();
  out["hash"] = std::string(to_string(view.hash()));
  out["version"] = view.version();
  out["weighted"] = view.weighted();
  out["owner"] = view.node(ranking.front().node).id;
  if (a.replicas) {
    out["replicas"] = nlohmann::ordered_json::array();
    for (auto n : replicas) out["replicas"].push_back(view.node(n).id);
  }
  out["partial"] = partial;
  if (const Hierarchy* h = view.hierarchy()) {
    out["hierarchy"] = h->labels();
    auto& path = out["path"] = nlohmann::ordered_json::array();
    for (const auto& step : reference::owner_path(view, a.key)) {
      const Bucket& b = h->level(step.level)[step.bucket];
      path.push_back({{"level", h->labels()[step.level]}, {"bucket", b.name}, {"fnv", step.fnv},
                      {"r", step.r}, {"weight", b.weight}, {"score", step.score}});
    }
  }
  auto& scores = out["scores"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const auto& s = ranking[i];
    nlohmann::ordered_json row;
    row["node"] = view.node(s.node).id;
    row["rank"] = i + 1;
    row["fnv"] = s.fnv;
    row["r"] = s.r;
    if (view.weighted()) {
      row["score"] = s.score;
      row["weight"] = view.node(s.node).weight;
    } else {
      row["score"] = s.r;
    }
    scores.push_back(std::move(row));
  }
  // Keys and ids are bytes: invalid UTF-8 is shown with U+FFFD rather than refused.
  fmt::print("{}\n", out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace));
  return 0;
}

// Hierarchical views: at each level, the buckets under the chosen parent by score, the
// chosen one starred; then the nodes of the chosen last-level bucket lead the ranking.
void print_path(const ClusterView& view, std::string_view key) {
  const Hierarchy* h = view.hierarchy();
  if (!h) return;
  std::vector<std::uint32_t> candidates(h->level(0).size());
  for (std::uint32_t i = 0; i < candidates.size(); ++i) candidates[i] = i;
  const auto path = reference::owner_path(view, key);
  for (std::size_t j = 0; j < h->depth(); ++j) {
    std::vector<reference::BucketScore> scored;
    for (std::uint32_t b : candidates) scored.push_back(reference::score_bucket(view, key, j, b));
    std::sort(scored.begin(), scored.end(), [&](const auto& x, const auto& y) {
      return reference::bucket_ranks_before(view, x, y);
    });
    fmt::print("  level {} \"{}\": bucket, weight W, score u^(1/W)\n", j + 1, h->labels()[j]);
    for (const auto& s : scored) {
      const Bucket& b = h->level(j)[s.bucket];
      fmt::print("  {} {}  {}  {:.17g}\n", s.bucket == path[j].bucket ? "*" : " ", b.name,
                 b.weight, s.score);
    }
    candidates = h->level(j)[path[j].bucket].children;
  }
}

int print_table(const ClusterView& view, const SelectArgs& a,
                const std::vector<reference::PairScore>& ranking,
                const std::vector<std::uint32_t>& replicas, bool partial) {
  fmt::print("key \"{}\"  seed \"{}\"  hash {}  version {}  {}\n", a.key, view.seed(),
             to_string(view.hash()), view.version(), view.weighted() ? "weighted" : "unweighted");
  print_path(view, a.key);
  std::size_t width = 4;
  for (auto& n : view.nodes()) width = std::max(width, n.id.size());
  if (view.weighted())
    fmt::print("  {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22}\n", "rank", "node", width, "fnv1a",
               "r", "weight", "score u^(1/w)");
  else
    fmt::print("  {:>4}  {:<{}}  {:>10}  {:>10}\n", "rank", "node", width, "fnv1a", "score r");
  for (std::size_t i = 0; i < ranking.size(); ++i) {
    const auto& s = ranking[i];
    const char* mark = i == 0 ? "*" : " ";
    if (view.weighted())
      fmt::print("{} {:>4}  {:<{}}  {:>10}  {:>10}  {:>8}  {:>22.17g}\n", mark, i + 1,
                 view.node(s.node).id, width, s.fnv, s.r, view.node(s.node).weight, s.score);
    else
      fmt::print("{} {:>4}  {:<{}}  {:>10}  {:>10}\n", mark, i + 1, view.node(s.node).id, width,
                 s.fnv, s.r);
  }
  fmt::print("owner: {}\n", view.node(ranking.front().node).id);
  if (a.replicas) {
    std::vector<std::string> ids;
    for (auto n : replicas) ids.push_back(view.node(n).id);
    fmt::print("replicas ({}{}): {}{}\n", a.replicas,
               a.distinct.empty() ? "" : ", distinct " + a.distinct, fmt::join(ids, ", "),
               partial ? "  [PARTIAL]" : "");
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
    bool partial = false;
    const auto replicas = chosen_replicas(view, *args, partial);
    const auto ranking = reference::rank(view, args->key);
    return args->format == "json" ? print_json(view, *args, ranking, replicas, partial)
                                  : print_table(view, *args, ranking, replicas, partial);
  };
}

}  // namespace hrw::cli
