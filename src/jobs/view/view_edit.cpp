// hrw view edit's computation (view_tools.hpp): the spec the view was validated from, the
// edits applied in a fixed order, then the one validation every view goes through.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/view_json.hpp"
#include "hrw/view_tools.hpp"

namespace hrw {

namespace {

std::vector<NodeSpec>::iterator find_node(std::vector<NodeSpec>& nodes, const std::string& id) {
  return std::find_if(nodes.begin(), nodes.end(), [&](const NodeSpec& n) { return n.id == id; });
}

// An id named twice in one kind of edit: the edit would otherwise keep one of the values
// without a word (two weights) or blame the view (a node removed twice).
template <class Items, class IdOf>
void refuse_twice(const Items& items, IdOf id_of, const std::string& source, const char* what) {
  for (std::size_t i = 0; i < items.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (id_of(items[i]) == id_of(items[j]))
        throw InputError(fmt::format("{}: node {} is {} twice", source, quote_for_message(id_of(items[i])), what));
}

}  // namespace

ClusterSpec edit_view(const ClusterView& view, const ViewEdit& edit, const std::string& source) {
  refuse_twice(edit.remove, [](const std::string& id) { return id; }, source, "removed");
  refuse_twice(edit.add, [](const NodeSpec& n) { return n.id; }, source, "added");
  refuse_twice(edit.weights, [](const auto& w) { return w.first; }, source, "given a weight");
  ClusterSpec spec = spec_of(view);
  spec.source = source;
  for (const std::string& id : edit.remove) {
    const auto it = find_node(spec.nodes, id);
    if (it == spec.nodes.end())
      throw InputError(fmt::format("{}: node {} to remove is not in {}", source, quote_for_message(id),
                                   view.source()));
    spec.nodes.erase(it);
  }
  for (const NodeSpec& n : edit.add) {
    if (find_node(spec.nodes, n.id) != spec.nodes.end())
      throw InputError(fmt::format("{}: node {} to add is already in the view", source, quote_for_message(n.id)));
    spec.nodes.push_back(n);
  }
  for (const auto& [id, weight] : edit.weights) {
    const auto it = find_node(spec.nodes, id);
    if (it == spec.nodes.end())
      throw InputError(fmt::format("{}: node {} to reweight is not in the view", source, quote_for_message(id)));
    it->weight = weight;
  }
  if (edit.version) {
    spec.version = *edit.version;
  } else {
    if (spec.version == std::numeric_limits<std::int64_t>::max())
      throw InputError(fmt::format("{}: version {} has no successor: give the new version", source, spec.version));
    spec.version += 1;
  }
  (void)ClusterView(spec);  // the one validation: ids, weights, hierarchy labels, rule
  return spec;
}

}  // namespace hrw
