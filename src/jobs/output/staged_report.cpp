// What a staged plan tells the operator: DIR/summary.json, the stderr summary, and the
// step views as cluster files.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/output.hpp"

namespace hrw {

namespace {

using nlohmann::ordered_json;

double fraction(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

std::string cluster_json(const ClusterSpec& spec) {
  ordered_json out;
  out["version"] = spec.version;
  if (!spec.seed.empty()) out["seed"] = spec.seed;
  out["hash"] = std::string(to_string(spec.hash));
  auto& nodes = out["nodes"] = ordered_json::array();
  for (const NodeSpec& n : spec.nodes) {
    ordered_json node;
    node["id"] = n.id;
    if (n.weight) node["weight"] = *n.weight;  // nlohmann prints doubles round-trip exact
    for (auto& [name, value] : n.labels) node[name] = value;
    if (n.cut != 0) node["cut"] = n.cut;  // contract §9: omitted when 0 (the default)
    nodes.push_back(std::move(node));
  }
  return out.dump(2, ' ', false, ordered_json::error_handler_t::strict) + "\n";
}

std::string staged_summary_json(const StagedPlan& p) {
  const bool bytes = p.cap_by == CapBy::bytes;
  auto moved = [&](const PlanSummary& s) { return bytes ? s.moved.bytes : s.moved.keys; };
  auto total = [&](const PlanSummary& s) { return bytes ? s.read.bytes : s.read.keys; };
  ordered_json out;
  out["from_version"] = p.direct.from_version;
  out["to_version"] = p.direct.to_version;
  out["cap_by"] = bytes ? "bytes" : "keys";
  out["max_moved_fraction"] = p.max_moved_fraction;
  out["keys"] = p.direct.read.keys;
  if (p.direct.has_bytes) out["bytes"] = p.direct.read.bytes;
  auto& steps = out["steps"] = ordered_json::array();
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const PlanSummary& s = p.steps[k].plan;
    ordered_json row;
    row["step"] = k + 1;
    row["dir"] = fmt::format("steps/{:02}", k + 1);
    row["version"] = p.steps[k].view.version;
    row["moved"] = moved(s);
    row["moved_fraction"] = fraction(moved(s), total(s));
    if (bytes) row["moved_keys"] = s.moved.keys;
    steps.push_back(std::move(row));
  }
  out["total_moved"] = p.total_moved();
  out["direct_moved"] = moved(p.direct);
  out["excess"] = p.total_moved() - moved(p.direct);
  out["probes"] = p.probes;
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string staged_summary_text(const StagedPlan& p) {
  const char* unit = p.cap_by == CapBy::bytes ? "bytes" : "keys";
  const std::uint64_t direct = p.cap_by == CapBy::bytes ? p.direct.moved.bytes : p.direct.moved.keys;
  const std::uint64_t whole = p.cap_by == CapBy::bytes ? p.direct.read.bytes : p.direct.read.keys;
  std::string out = fmt::format(
      "staged plan v{} -> v{}: {} step(s) of at most {:.3f}% of the {}; total moved {} vs direct {} "
      "(excess {}); {} placement passes\n",
      p.direct.from_version, p.direct.to_version, p.steps.size(), p.max_moved_fraction * 100, unit,
      p.total_moved(), direct, p.total_moved() - direct, p.probes);
  for (std::size_t k = 0; k < p.steps.size(); ++k) {
    const PlanSummary& s = p.steps[k].plan;
    const std::uint64_t m = p.cap_by == CapBy::bytes ? s.moved.bytes : s.moved.keys;
    out += fmt::format("  step {:02} (v{}): {} {} moved ({:.3f}%)\n", k + 1, p.steps[k].view.version, m,
                       unit, whole ? 100.0 * static_cast<double>(m) / static_cast<double>(whole) : 0.0);
  }
  return out;
}

}  // namespace hrw
