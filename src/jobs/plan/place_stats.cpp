#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/bulk.hpp"
#include "hrw/csv.hpp"

namespace hrw {

PlaceStats::PlaceStats(const ClusterView& view, std::uint32_t replicas)
    : view_(&view), replicas_(replicas), owned_(view.size()), slots_(view.size()) {}

void PlaceStats::add(const KeyChunk& chunk, const Placement& placement) {
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    read_.add(chunk, i);
    owned_[placement.owner(i)].add(chunk, i);
    if (replicas_ == 1) continue;
    bool partial = false;
    for (std::uint32_t r = 0; r < replicas_; ++r) {
      const std::uint32_t n = placement.node(i, r);
      if (n == kNoNode)
        partial = true;
      else
        ++slots_[n];
    }
    partial_keys_ += partial;
  }
}

double PlaceStats::share_ratio(std::uint32_t node) const {
  if (read_.keys == 0) return 0.0;
  const double share = static_cast<double>(owned_[node].keys) / static_cast<double>(read_.keys);
  return share / view_->share(node);
}

double PlaceStats::peak_to_mean() const {
  double peak = 0;
  for (std::uint32_t n = 0; n < view_->size(); ++n) peak = std::max(peak, share_ratio(n));
  return peak;
}

std::string PlaceStats::to_json(bool with_bytes, bool with_requests) const {
  using nlohmann::ordered_json;
  ordered_json out;
  out["version"] = view_->version();
  out["replicas"] = replicas_;
  out["keys"] = read_.keys;
  if (with_bytes) out["bytes"] = read_.bytes;
  if (with_requests) out["requests"] = read_.requests;
  if (replicas_ > 1) out["partial_keys"] = partial_keys_;
  out["peak_to_mean"] = peak_to_mean();
  auto& nodes = out["nodes"] = ordered_json::array();
  for (std::uint32_t n = 0; n < view_->size(); ++n) {
    ordered_json row;
    row["id"] = view_->node(n).id;
    row["keys"] = owned_[n].keys;
    if (with_bytes) row["bytes"] = owned_[n].bytes;
    if (with_requests) row["requests"] = owned_[n].requests;
    if (replicas_ > 1) row["replica_slots"] = slots_[n];
    row["share"] = read_.keys ? static_cast<double>(owned_[n].keys) / static_cast<double>(read_.keys) : 0.0;
    row["target_share"] = view_->share(n);
    row["share_ratio"] = share_ratio(n);
    nodes.push_back(std::move(row));
  }
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string PlaceStats::table(bool with_bytes, bool with_requests) const {
  std::size_t width = 5;
  for (auto& node : view_->nodes()) width = std::max(width, node.id.size());
  std::string out = fmt::format("{:<{}}  {:>12}", "node", width, "keys");
  if (with_bytes) out += fmt::format("  {:>14}", "bytes");
  if (with_requests) out += fmt::format("  {:>14}", "requests");
  if (replicas_ > 1) out += fmt::format("  {:>12}", "replicas");
  out += fmt::format("  {:>8}  {:>8}  {:>6}\n", "share", "target", "ratio");
  auto line = [&](std::string_view id, const LoadCounts& c, std::uint64_t slots, double share,
                  double target) {
    out += fmt::format("{:<{}}  {:>12}", id, width, c.keys);
    if (with_bytes) out += fmt::format("  {:>14}", c.bytes);
    if (with_requests) out += fmt::format("  {:>14}", c.requests);
    if (replicas_ > 1) out += fmt::format("  {:>12}", slots);
    out += fmt::format("  {:>7.3f}%  {:>7.3f}%  {:>6.3f}\n", share * 100, target * 100,
                       target > 0 ? share / target : 0.0);
  };
  std::uint64_t total_slots = 0;
  for (std::uint32_t n = 0; n < view_->size(); ++n) {
    const double share =
        read_.keys ? static_cast<double>(owned_[n].keys) / static_cast<double>(read_.keys) : 0.0;
    line(view_->node(n).id, owned_[n], slots_[n], share, view_->share(n));
    total_slots += slots_[n];
  }
  line("total", read_, total_slots, read_.keys ? 1.0 : 0.0, 1.0);
  out += fmt::format("peak-to-mean {:.4f}{}\n", peak_to_mean(),
                     partial_keys_ ? fmt::format("  partial keys {}", partial_keys_) : "");
  return out;
}

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
