// Looking at a view and changing it without editing JSON (docs/plan.md, "Changing a view"):
// what `hrw view show` prints and what `hrw view edit` computes. Errors name the node or
// field (InputError), never a command-line flag.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/place.hpp"

namespace hrw {

// One edit of a view, applied in this order: removals, additions, weights, version.
struct ViewEdit {
  std::vector<std::string> remove;                      // ids that must be in the view
  std::vector<NodeSpec> add;                            // ids that must not be (after removals)
  std::vector<std::pair<std::string, double>> weights;  // ids of the edited view
  std::optional<std::int64_t> version;                  // nullopt: the view's version + 1
};

// The edited view's spec, validated (a ClusterView is built from it): seed, hash, rule and
// hierarchy kept. `source` names the result in messages (e.g. the output file). InputError
// naming the node or field when an edit does not apply or the result is not a valid view.
ClusterSpec edit_view(const ClusterView& view, const ViewEdit& edit, const std::string& source);

// `hrw view show`: nodes, weights, labels, target shares, domains per label, hierarchy
// buckets, rule and version. The table lists every node up to 40, beyond that the 10 with
// the largest and the 10 with the smallest target share and the shares' distribution.
// With `fill` (the stats of placing keys in the view: hrw view show --keys), each node also
// shows what it holds: keys and, with a bytes column, bytes of every replica it has (its
// disk fill).
struct ViewFill {
  const PlaceStats* stats = nullptr;
  bool has_bytes = false;
};
std::string view_show_json(const ClusterView& view, ViewFill fill = {});
std::string view_show_table(const ClusterView& view, ViewFill fill = {});

}  // namespace hrw
