// What a staged plan tells the operator: DIR/summary.json and the stderr summary (the step
// views are written by the one view serialiser, view_json.hpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/hierarchy.hpp"
#include "hrw/output.hpp"

namespace hrw {

namespace {

using nlohmann::ordered_json;

double fraction(std::uint64_t part, std::uint64_t whole) {
  return whole ? static_cast<double>(part) / static_cast<double>(whole) : 0.0;
}

}  // namespace

std::string staged_summary_json(const StagedPlan& p) {
  const bool bytes = p.cap_by == CapBy::bytes;
  auto moved = [&](const PlanSummary& s) { return bytes ? s.moved.bytes : s.moved.keys; };
  auto total = [&](const PlanSummary& s) { return bytes ? s.read.bytes : s.read.keys; };
  ordered_json out;
  out["from_version"] = p.direct.from_version;
  out["to_version"] = p.direct.to_version;
  const bool both = p.cap_by == CapBy::keys_and_bytes;
  out["cap_by"] = both ? "keys,bytes" : bytes ? "bytes" : "keys";
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
    if (both) {
      row["moved_bytes"] = s.moved.bytes;
      row["moved_bytes_fraction"] = fraction(s.moved.bytes, s.read.bytes);
    }
    if (s.schedule && s.schedule->estimated_seconds()) row["estimated_seconds"] = *s.schedule->estimated_seconds();
    steps.push_back(std::move(row));
  }
  out["total_moved"] = p.total_moved();
  out["direct_moved"] = moved(p.direct);
  out["excess"] = p.total_moved() - moved(p.direct);
  out["probes"] = p.probes;
  if (!p.steps.empty() && p.steps.front().plan.schedule && p.steps.front().plan.schedule->estimated_seconds()) {
    double seconds = 0;
    for (const StagedStep& s : p.steps) seconds += *s.plan.schedule->estimated_seconds();
    out["estimated_seconds"] = seconds;
  }
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string staged_summary_text(const StagedPlan& p) {
  const char* unit = p.cap_by == CapBy::bytes ? "bytes" : p.cap_by == CapBy::keys ? "keys" : "keys and of the bytes";
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
    out += fmt::format("  step {:02} (v{}): {} {} moved ({:.3f}%)", k + 1, p.steps[k].view.version, m,
                       p.cap_by == CapBy::bytes ? "bytes" : "keys",
                       whole ? 100.0 * static_cast<double>(m) / static_cast<double>(whole) : 0.0);
    if (p.cap_by == CapBy::keys_and_bytes)
      out += fmt::format(", {} bytes ({:.3f}%)", s.moved.bytes,
                         s.read.bytes ? 100.0 * static_cast<double>(s.moved.bytes) / static_cast<double>(s.read.bytes) : 0.0);
    if (s.schedule && s.schedule->estimated_seconds()) out += ", estimated " + duration_text(*s.schedule->estimated_seconds());
    out += "\n";
  }
  return out;
}

}  // namespace hrw
