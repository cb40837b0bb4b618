// hrw select's computation (select.hpp): one key's ranking, owner and replicas, by the
// scalar reference. Its renderings are in src/jobs/output/.
#include <algorithm>

#include "hrw/placement.hpp"
#include "hrw/select.hpp"

namespace hrw {

Selection select_key(const ClusterView& view, std::string_view key, const SelectRequest& request) {
  Selection s;
  s.key = std::string(key);
  s.replicas = request.replicas == 0 && request.distinct ? 1 : request.replicas;
  PlaceOptions options;
  options.replicas = std::max<std::uint32_t>(s.replicas, 1);
  options.distinct_label = request.distinct.value_or("");
  options.allow_partial = request.partial;
  options = options_for(view, options, {request.replicas != 0, request.distinct.has_value(), request.partial});
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

}  // namespace hrw
