// hrw select's audit of one key (select.hpp): the selection, and its JSON form.
#include <algorithm>

#include <nlohmann/json.hpp>

#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/select.hpp"

namespace hrw {

Selection select_key(const ClusterView& view, std::string_view key, const SelectRequest& request) {
  Selection s;
  s.key = std::string(key);
  s.replicas = request.replicas == 0 && !request.distinct.empty() ? 1 : request.replicas;
  PlaceOptions options;
  options.replicas = std::max<std::uint32_t>(s.replicas, 1);
  options.distinct_label = request.distinct;
  options.allow_partial = request.partial;
  options = options_for(view, options,
                        {request.replicas != 0, !request.distinct.empty(), request.partial});
  if (view.rule()) s.replicas = options.replicas;  // the rule's replicas are always shown
  s.distinct = options.distinct_label;
  if (s.replicas) {
    validate_request(view, options);
    s.warning = distinct_warning(view, options);
    if (view.has_cuts()) {  // contract §9
      auto c = reference::place_with_cuts(view, key, s.replicas, options.distinct_label,
                                          options.allow_partial);
      s.replica_nodes = std::move(c.nodes);
      s.partial = c.partial;
      s.overflow = c.overflow;
    } else if (options.distinct_label.empty()) {
      s.replica_nodes = reference::top_r(view, key, s.replicas);
    } else {
      auto d = reference::top_r_distinct(view, key, s.replicas, options.distinct_label,
                                         options.allow_partial);
      s.replica_nodes = std::move(d.nodes);
      s.partial = d.partial;
    }
  }
  s.ranking = reference::rank(view, key);
  s.owner = s.ranking.front().node;
  if (view.has_cuts()) {
    const auto c = reference::place_with_cuts(view, key, 1);
    s.owner = c.nodes.front();
    s.overflow = s.overflow || c.overflow;
  }
  if (view.hierarchy()) s.path = reference::owner_path(view, key);
  return s;
}

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
