// hrw check's reports (output.hpp): a placement against a view, or against a plan's rounds.
#include <algorithm>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "hrw/errors.hpp"
#include "hrw/output.hpp"

namespace hrw {
namespace {

// A row per node with something missing or extra, up to kMaxNodeRows; beyond, the nodes
// with the most and the fewest misplaced replicas and how many nodes have how many (as
// place does): 10,000 rows on a terminal are read by nobody. Node ids are bytes from the
// input: they are shown by the one quoting rule of messages (quote_for_message), so an id
// holding a newline or a control byte cannot forge a row.
std::string node_table(const PlanSummary& s) {
  const char* unit = s.replicas == 1 ? "keys" : "replicas";
  std::vector<const NodeFlow*> rows;
  for (const NodeFlow& f : s.nodes)
    if (f.in.keys || f.out.keys) rows.push_back(&f);
  if (rows.empty()) return "";
  constexpr std::size_t kMaxNodeRows = 40, kEnds = 10;
  const std::size_t n = rows.size();
  auto off = [](const NodeFlow* f) { return f->in.keys + f->out.keys; };
  std::string distribution;
  if (n > kMaxNodeRows) {
    std::stable_sort(rows.begin(), rows.end(), [&](auto* a, auto* b) { return off(a) > off(b); });
    // Quartiles of missing + extra over the nodes listed.
    auto at = [&](double q) { return off(rows[static_cast<std::size_t>(q * static_cast<double>(n - 1))]); };
    distribution = fmt::format("{} nodes with {} missing or extra: max {}, 75% {}, median {}, 25% {}, min {}\n",
                               n, unit, at(0), at(0.25), at(0.5), at(0.75), at(1));
    rows.erase(rows.begin() + kEnds, rows.end() - kEnds);
  }
  std::vector<std::string> ids;
  for (auto* f : rows) ids.push_back(quote_for_message(f->id));
  std::size_t width = 4;
  for (const std::string& id : ids) width = std::max(width, id.size());
  std::string out = distribution;
  out += fmt::format("{:<{}}  {:>16}  {:>16}", "node", width, fmt::format("{} missing", unit),
                     fmt::format("{} extra", unit));
  out += s.has_bytes ? fmt::format("  {:>14}  {:>14}\n", "bytes missing", "bytes extra") : "\n";
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (!distribution.empty() && i == kEnds)
      out += fmt::format("... {} more nodes (above: the {} with the most misplaced; below: the {} with the fewest)\n",
                         n - 2 * kEnds, kEnds, kEnds);
    const NodeFlow& f = *rows[i];
    out += fmt::format("{:<{}}  {:>16}  {:>16}", ids[i], width, f.in.keys, f.out.keys);
    out += s.has_bytes ? fmt::format("  {:>14}  {:>14}\n", f.in.bytes, f.out.bytes) : "\n";
  }
  return out;
}

}  // namespace

// Keys (and bytes) not where the view puts them, then the nodes.
std::string check_text(const PlanSummary& s) {
  std::string out = fmt::format("check {} against v{}: {} keys, {} not where v{} puts them ({:.3f}%)",
                                one_line(s.from_placement), s.to_version, s.read.keys, s.moved.keys,
                                s.to_version, s.moved_fraction() * 100);
  if (s.has_bytes) out += fmt::format(", {} of {} bytes", s.moved.bytes, s.read.bytes);
  return out + "\n" + node_table(s);
}

std::string check_json(const PlanSummary& s) {
  nlohmann::ordered_json out;
  out["placement"] = s.from_placement;
  out["to_version"] = s.to_version;
  out["replicas"] = s.replicas;
  out["keys"] = s.read.keys;
  out["misplaced"] = s.moved.keys;
  out["misplaced_fraction"] = s.moved_fraction();
  if (s.has_bytes) out["bytes"] = s.read.bytes, out["misplaced_bytes"] = s.moved.bytes;
  auto& nodes = out["nodes"] = nlohmann::ordered_json::array();
  for (const NodeFlow& f : s.nodes) {
    nlohmann::ordered_json row;
    row["id"] = f.id;
    row["missing"] = f.in.keys;
    row["extra"] = f.out.keys;
    if (s.has_bytes) row["bytes_missing"] = f.in.bytes, row["bytes_extra"] = f.out.bytes;
    nodes.push_back(std::move(row));
  }
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string progress_check_text(const ProgressCheck& c, const std::string& step) {
  return fmt::format(
      "check {} against plan {}{} ({} -> v{}) through round {}: {} keys ({} expected where v{} puts them), "
      "{} not where expected ({:.3f}%)\n",
      one_line(c.placement), one_line(c.plan_dir), step,
      c.from_placement.empty() ? fmt::format("v{}", c.from_version) : one_line(c.from_placement), c.to_version,
      c.through_round, c.keys, c.expected_moved,
      c.to_version, c.misplaced, c.keys ? 100.0 * static_cast<double>(c.misplaced) / static_cast<double>(c.keys) : 0.0);
}

std::string progress_check_json(const ProgressCheck& c) {
  nlohmann::ordered_json out;
  out["placement"] = c.placement;
  out["plan"] = c.plan_dir;
  if (c.from_placement.empty())
    out["from_version"] = c.from_version;
  else
    out["from_placement"] = c.from_placement;
  out["to_version"] = c.to_version;
  out["replicas"] = c.replicas;
  out["through_round"] = c.through_round;
  out["keys"] = c.keys;
  out["expected_moved"] = c.expected_moved;
  out["misplaced"] = c.misplaced;
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

}  // namespace hrw
