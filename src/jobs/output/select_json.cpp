// hrw select's audit of one key as JSON (output.hpp); the selection is src/jobs/select/.
#include <nlohmann/json.hpp>

#include "hrw/hierarchy.hpp"
#include "hrw/output.hpp"

namespace hrw {

std::string selection_json(const ClusterView& view, const Selection& s) {
  nlohmann::ordered_json out;
  out["key"] = s.key;
  out["seed"] = view.seed();
  out["hash"] = std::string(to_string(view.hash()));
  out["version"] = view.version();
  out["weighted"] = view.weighted();
  out["owner"] = view.node(s.owner).id;
  if (s.replicas) {
    out["replicas"] = nlohmann::ordered_json::array();
    for (auto n : s.replica_nodes) out["replicas"].push_back(view.node(n).id);
  }
  out["partial"] = s.partial;
  if (view.has_cuts()) out["overflow"] = s.overflow;
  if (const Hierarchy* h = view.hierarchy()) {
    out["hierarchy"] = h->labels();
    auto& path = out["path"] = nlohmann::ordered_json::array();
    for (const auto& step : s.path) {
      const Bucket& b = h->level(step.level)[step.bucket];
      path.push_back({{"level", h->labels()[step.level]}, {"bucket", b.name}, {"fnv", step.fnv},
                      {"r", step.r}, {"weight", b.weight}, {"score", step.score}});
    }
  }
  auto& scores = out["scores"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < s.ranking.size(); ++i) {
    const auto& score = s.ranking[i];
    nlohmann::ordered_json row;
    row["node"] = view.node(score.node).id;
    row["rank"] = i + 1;
    row["fnv"] = score.fnv;
    row["r"] = score.r;
    if (view.weighted()) {
      row["score"] = score.score;
      row["weight"] = view.node(score.node).weight;
    } else {
      row["score"] = score.r;
    }
    if (view.has_cuts()) {
      row["cut"] = view.node(score.node).cut;
      row["clears"] = reference::clears(view, score);
    }
    scores.push_back(std::move(row));
  }
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace hrw
