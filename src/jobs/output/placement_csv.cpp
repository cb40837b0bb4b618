#include <fmt/format.h>

#include "hrw/csv.hpp"
#include "hrw/output.hpp"

namespace hrw {

PlacementCsv::PlacementCsv(const ClusterView& view, std::uint32_t replicas, bool with_bytes, bool with_requests)
    : replicas_(replicas), with_bytes_(with_bytes), with_requests_(with_requests) {
  for (auto& node : view.nodes()) ids_.push_back(csv::quoted(node.id));
}

std::string PlacementCsv::header() const {
  std::string h = "key";
  if (replicas_ == 1) h += ",owner";
  for (std::uint32_t r = 1; replicas_ > 1 && r <= replicas_; ++r) h += fmt::format(",replica_{}", r);
  if (with_bytes_) h += ",bytes";
  if (with_requests_) h += ",requests";
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
    if (with_bytes_) fmt::format_to(std::back_inserter(out), ",{}", chunk.bytes_of(i));
    if (with_requests_) fmt::format_to(std::back_inserter(out), ",{}", chunk.requests_of(i));
    out.push_back('\n');
  }
}

}  // namespace hrw
