// hrw-tree: rendezvous on the view's hierarchy (contract §6) through the batch engine (the
// tree engine: Z + K + M pair-scores per key), SIMD, one thread like the other rows.
#include <optional>
#include <unordered_map>

#include "compare/placer.hpp"
#include "hrw/placement.hpp"

namespace hrw::compare {
namespace {

class HrwTreePlacer final : public Placer {
 public:
  std::string name() const override { return "hrw-tree"; }
  void build(const NodeList& nodes) override {
    ClusterSpec spec;
    spec.source = nodes.source;
    spec.seed = nodes.seed;
    spec.hash = nodes.hash;
    spec.hierarchy = nodes.hierarchy;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
      NodeSpec node;
      node.id = nodes.ids[i];
      if (nodes.weighted) node.weight = nodes.weights[i];
      if (i < nodes.labels.size()) node.labels = nodes.labels[i];
      spec.nodes.push_back(std::move(node));
    }
    view_.emplace(std::move(spec));
    std::unordered_map<std::string_view, std::uint32_t> list_index;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) list_index.emplace(nodes.ids[i], i);
    to_list_.assign(view_->size(), 0);
    for (std::uint32_t v = 0; v < view_->size(); ++v) to_list_[v] = list_index.at(view_->node(v).id);
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    PlaceOptions options;
    options.threads = 1;
    const Placement placement = place(*view_, keys, options);
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = to_list_[placement.owner(i)];
  }
  std::size_t structure_bytes() const override { return 0; }  // scores are computed, not stored
  bool uses_weights() const override { return true; }

 private:
  std::optional<ClusterView> view_;
  std::vector<std::uint32_t> to_list_;  // view index -> list index
};

}  // namespace

std::unique_ptr<Placer> make_hrw_tree() { return std::make_unique<HrwTreePlacer>(); }

}  // namespace hrw::compare
