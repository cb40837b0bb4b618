// What a plan tells the operator: summary.json, the stderr summary and the SVG chart.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/output.hpp"
#include "output/svg_chart.hpp"

namespace hrw {

namespace {

using nlohmann::ordered_json;

// keys_*, bytes_*, requests_* for one flow direction; bytes and requests only when given.
void put_counts(ordered_json& row, const char* suffix, const LoadCounts& c, const PlanSummary& s) {
  row[fmt::format("keys_{}", suffix)] = c.keys;
  if (s.has_bytes) row[fmt::format("bytes_{}", suffix)] = c.bytes;
  if (s.has_requests) row[fmt::format("requests_{}", suffix)] = c.requests;
}

std::string percent(double f) { return fmt::format("{:.3f}%", f * 100.0); }

}  // namespace

std::string summary_json(const PlanSummary& s) {
  ordered_json out;
  out["from_version"] = s.from_version;
  out["to_version"] = s.to_version;
  out["replicas"] = s.replicas;
  out["keys"] = s.read.keys;
  out["moved"] = s.moved.keys;
  out["stayed"] = s.stayed.keys;
  out["moved_fraction"] = s.moved_fraction();
  out["ideal_fraction"] = s.ideal_fraction;
  if (s.has_bytes) out["bytes"] = s.read.bytes, out["bytes_moved"] = s.moved.bytes;
  if (s.has_requests) out["requests"] = s.read.requests, out["requests_moved"] = s.moved.requests;
  out["rows"] = s.rows;
  out["batch_size"] = s.batch_size;
  out["batches"] = s.batches;
  out["units"] = s.replicas == 1 ? "keys" : "replica slots";
  auto& nodes = out["nodes"] = ordered_json::array();
  for (const NodeFlow& f : s.nodes) {
    ordered_json row;
    row["id"] = f.id;
    put_counts(row, "before", f.before, s);
    put_counts(row, "after", f.after, s);
    row["in"] = f.in.keys;
    row["out"] = f.out.keys;
    if (s.has_bytes) row["bytes_in"] = f.in.bytes, row["bytes_out"] = f.out.bytes;
    if (s.has_requests) row["requests_in"] = f.in.requests, row["requests_out"] = f.out.requests;
    nodes.push_back(std::move(row));
  }
  // Keys are not in the summary, but node ids are bytes too: never refuse to write it.
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string summary_text(const PlanSummary& s) {
  std::string out = fmt::format("plan v{} -> v{}: {} keys, {} moved ({}), ideal {}\n",
                                s.from_version, s.to_version, s.read.keys, s.moved.keys,
                                percent(s.moved_fraction()), percent(s.ideal_fraction));
  const char* unit = s.replicas == 1 ? "keys" : "replica slots";
  auto top = [&](const char* title, auto count) {
    std::vector<const NodeFlow*> order;
    for (const NodeFlow& f : s.nodes)
      if (count(f) > 0) order.push_back(&f);
    std::stable_sort(order.begin(), order.end(),
                     [&](const NodeFlow* a, const NodeFlow* b) { return count(*a) > count(*b); });
    if (order.empty()) return;
    out += fmt::format("  biggest {} ({}):", title, unit);
    for (std::size_t i = 0; i < std::min<std::size_t>(order.size(), 5); ++i)
      out += fmt::format(" {} {}", order[i]->id, count(*order[i]));
    out += "\n";
  };
  top("inflows", [](const NodeFlow& f) { return f.in.keys; });
  top("outflows", [](const NodeFlow& f) { return f.out.keys; });
  out += fmt::format("  {} move row(s) in {} batch(es) of at most {}\n", s.rows, s.batches,
                     s.batch_size);
  return out;
}

std::string plan_svg(const PlanSummary& s) {
  svg::BarPanel flows;
  flows.title = fmt::format("Flows per node, v{} -> v{}", s.from_version, s.to_version);
  flows.x_label = "node";
  flows.y_label = s.replicas == 1 ? "keys" : "replica slots";
  svg::Series in{"in", {}}, out{"out", {}};
  svg::BarPanel load;
  load.title = "Load per node";
  load.x_label = "node";
  load.y_label = flows.y_label;
  svg::Series before{fmt::format("v{}", s.from_version), {}}, after{fmt::format("v{}", s.to_version), {}};
  for (const NodeFlow& f : s.nodes) {
    flows.categories.push_back(f.id);
    load.categories.push_back(f.id);
    in.values.push_back(static_cast<double>(f.in.keys));
    out.values.push_back(static_cast<double>(f.out.keys));
    before.values.push_back(static_cast<double>(f.before.keys));
    after.values.push_back(static_cast<double>(f.after.keys));
  }
  flows.series = {in, out};
  load.series = {before, after};
  return svg::render(fmt::format("hrw plan: {} moved ({}), ideal {}", s.moved.keys,
                                 percent(s.moved_fraction()), percent(s.ideal_fraction)),
                     {flows, load});
}

}  // namespace hrw
