// hrw place's --stats JSON and its stderr table.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/errors.hpp"
#include "hrw/output.hpp"

namespace hrw {

std::string place_stats_json(const PlaceStats& s, bool with_bytes, bool with_requests) {
  using nlohmann::ordered_json;
  ordered_json out;
  out["version"] = s.view().version();
  out["replicas"] = s.replicas();
  out["keys"] = s.read().keys;
  if (with_bytes) out["bytes"] = s.read().bytes;
  if (with_requests) out["requests"] = s.read().requests;
  if (s.replicas() > 1) out["partial_keys"] = s.partial_keys();
  if (s.view().has_cuts()) out["overflow_keys"] = s.overflow_keys();  // contract §9
  out["peak_to_mean"] = s.peak_to_mean();
  auto& nodes = out["nodes"] = ordered_json::array();
  for (std::uint32_t n = 0; n < s.view().size(); ++n) {
    ordered_json row;
    row["id"] = s.view().node(n).id;
    row["keys"] = s.owned()[n].keys;
    if (with_bytes) row["bytes"] = s.owned()[n].bytes;
    if (with_requests) row["requests"] = s.owned()[n].requests;
    if (s.replicas() > 1) {
      row["replica_slots"] = s.slots()[n].keys;
      if (with_bytes) row["replica_bytes"] = s.slots()[n].bytes;  // the node's disk fill
      if (with_requests) row["replica_requests"] = s.slots()[n].requests;
    }
    row["share"] = s.read().keys ? static_cast<double>(s.owned()[n].keys) / static_cast<double>(s.read().keys) : 0.0;
    row["target_share"] = s.view().share(n);
    row["share_ratio"] = s.share_ratio(n);
    nodes.push_back(std::move(row));
  }
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

PlaceStats parse_place_stats_json(const ClusterView& view, std::string_view text) {
  using nlohmann::json;
  const json in = json::parse(text, nullptr, false);
  if (!in.is_object() || !in.contains("nodes") || !in["nodes"].is_array())
    throw InputError("placement stats: not a stats JSON object");
  auto count = [](const json& object, const char* field) -> std::uint64_t {
    const auto it = object.find(field);
    if (it == object.end()) return 0;  // a column the input did not have
    if (!it->is_number_unsigned())
      throw InputError(fmt::format("placement stats: \"{}\" must be a non-negative integer", field));
    return it->get<std::uint64_t>();
  };
  const std::uint64_t replicas = count(in, "replicas");
  if (replicas == 0 || replicas > UINT32_MAX) throw InputError("placement stats: \"replicas\" is out of range");
  const json& nodes = in["nodes"];
  if (nodes.size() != view.size())
    throw InputError(fmt::format("placement stats: {} nodes, the view has {}", nodes.size(), view.size()));
  std::vector<LoadCounts> owned(view.size());
  std::vector<LoadCounts> slots(view.size());
  for (std::uint32_t n = 0; n < view.size(); ++n) {
    const json& row = nodes[n];
    if (!row.is_object()) throw InputError("placement stats: every node must be an object");
    owned[n] = {count(row, "keys"), count(row, "bytes"), count(row, "requests")};
    slots[n] = {count(row, "replica_slots"), count(row, "replica_bytes"), count(row, "replica_requests")};
  }
  PlaceStats stats(view, static_cast<std::uint32_t>(replicas));
  stats.set_counts(std::move(owned), std::move(slots), {count(in, "keys"), count(in, "bytes"), count(in, "requests")},
                   count(in, "partial_keys"), count(in, "overflow_keys"));
  return stats;
}

std::string place_stats_table(const PlaceStats& s, bool with_bytes, bool with_requests) {
  std::size_t width = 5;
  for (auto& node : s.view().nodes()) width = std::max(width, one_line(node.id).size());
  std::string out = fmt::format("{:<{}}  {:>12}", "node", width, "keys");
  if (with_bytes) out += fmt::format("  {:>14}", "bytes");
  if (with_requests) out += fmt::format("  {:>14}", "requests");
  if (s.replicas() > 1) out += fmt::format("  {:>12}", "replicas");
  if (s.replicas() > 1 && with_bytes) out += fmt::format("  {:>14}", "replica bytes");
  out += fmt::format("  {:>8}  {:>8}  {:>6}\n", "share", "target", "ratio");
  auto line = [&](std::string_view id, const LoadCounts& c, const LoadCounts& slots, double share,
                  double target) {
    out += fmt::format("{:<{}}  {:>12}", one_line(id), width, c.keys);  // control bytes as \xHH
    if (with_bytes) out += fmt::format("  {:>14}", c.bytes);
    if (with_requests) out += fmt::format("  {:>14}", c.requests);
    if (s.replicas() > 1) out += fmt::format("  {:>12}", slots.keys);
    if (s.replicas() > 1 && with_bytes) out += fmt::format("  {:>14}", slots.bytes);
    out += fmt::format("  {:>7.3f}%  {:>7.3f}%  {:>6.3f}\n", share * 100, target * 100,
                       target > 0 ? share / target : 0.0);
  };
  auto share_of = [&](std::uint32_t n) {
    return s.read().keys ? static_cast<double>(s.owned()[n].keys) / static_cast<double>(s.read().keys) : 0.0;
  };
  LoadCounts total_slots;
  for (std::uint32_t n = 0; n < s.view().size(); ++n) total_slots += s.slots()[n];
  // A row per node up to kMaxNodeRows; beyond, the most and least loaded (by share ratio)
  // and the ratios' distribution: 10,000 rows on stderr are read by nobody.
  constexpr std::uint32_t kMaxNodeRows = 40, kEnds = 10;
  const auto n_nodes = static_cast<std::uint32_t>(s.view().size());
  std::vector<std::uint32_t> rows(n_nodes);
  for (std::uint32_t n = 0; n < n_nodes; ++n) rows[n] = n;
  std::vector<double> ratios;
  if (n_nodes > kMaxNodeRows) {
    std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) {
      return s.share_ratio(a) > s.share_ratio(b);
    });
    for (std::uint32_t n : rows) ratios.push_back(s.share_ratio(n));
    rows.erase(rows.begin() + kEnds, rows.end() - kEnds);
  }
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!ratios.empty() && i == kEnds)
      out += fmt::format("... {} more nodes (rows above: the {} most loaded by ratio; below: the {} least)\n",
                         n_nodes - 2 * kEnds, kEnds, kEnds);
    line(s.view().node(rows[i]).id, s.owned()[rows[i]], s.slots()[rows[i]], share_of(rows[i]),
         s.view().share(rows[i]));
  }
  line("total", s.read(), total_slots, s.read().keys ? 1.0 : 0.0, 1.0);
  if (!ratios.empty()) {
    // ratios is sorted high to low: quantile q is at (1 - q) of the way.
    auto q = [&](double f) { return ratios[static_cast<std::size_t>((1.0 - f) * (ratios.size() - 1) + 0.5)]; };
    out += fmt::format("share ratio over {} nodes: min {:.3f}  p1 {:.3f}  p10 {:.3f}  median {:.3f}  "
                       "p90 {:.3f}  p99 {:.3f}  max {:.3f}\n",
                       n_nodes, q(0), q(0.01), q(0.1), q(0.5), q(0.9), q(0.99), q(1));
  }
  out += fmt::format("peak-to-mean {:.4f}{}{}\n", s.peak_to_mean(),
                     s.partial_keys() ? fmt::format("  partial keys {}", s.partial_keys()) : "",
                     s.view().has_cuts() ? fmt::format("  overflow keys {}", s.overflow_keys()) : "");
  return out;
}

}  // namespace hrw
