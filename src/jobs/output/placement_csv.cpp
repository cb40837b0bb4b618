#include <fmt/format.h>

#include "hrw/csv.hpp"
#include "hrw/output.hpp"

namespace hrw {

PlacementCsv::PlacementCsv(const ClusterView& view, std::uint32_t replicas) : replicas_(replicas) {
  for (auto& node : view.nodes()) ids_.push_back(csv::quoted(node.id));
}

std::string PlacementCsv::header() const {
  if (replicas_ == 1) return "key,owner\n";
  std::string h = "key";
  for (std::uint32_t r = 1; r <= replicas_; ++r) h += fmt::format(",replica_{}", r);
  return h + "\n";
}

void PlacementCsv::append_rows(std::string& out, const KeyChunk& chunk,
                               const Placement& placement) const {
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    csv::append_field(out, chunk.keys[i]);
    for (std::uint32_t r = 0; r < replicas_; ++r) {
      out.push_back(',');
      const std::uint32_t n = placement.node(i, r);
      if (n != kNoNode) out.append(ids_[n]);  // partial: empty cell
    }
    out.push_back('\n');
  }
}

}  // namespace hrw
