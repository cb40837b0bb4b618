// What a plan tells the operator: summary.json, the stderr summary and the SVG chart.
#include <algorithm>
#include <cmath>

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

// "v3", or the placement file a plan starts from.
std::string from_name(const PlanSummary& s) {
  return s.from_placement.empty() ? fmt::format("v{}", s.from_version) : s.from_placement;
}

template <class T>
ordered_json or_null(const std::optional<T>& v) {
  return v ? ordered_json(*v) : ordered_json(nullptr);
}

ordered_json schedule_json(const ScheduleSummary& s) {
  ordered_json out;
  out["rounds"] = s.rounds;
  out["lower_bound"] = s.lower_bound;
  out["unit_bound"] = s.unit_bound;
  out["byte_bound"] = s.byte_bound;
  out["max_moves_per_node"] = or_null(s.limits.max_moves_per_node);
  out["max_bytes_per_node"] = or_null(s.limits.max_bytes_per_node);
  out["oversize_keys"] = s.oversize_keys;
  if (s.limits.node_bandwidth) {
    out["node_bandwidth"] = *s.limits.node_bandwidth;
    out["estimated_seconds"] = *s.estimated_seconds();
  }
  auto& rounds = out["per_round"] = ordered_json::array();
  for (const RoundStats& r : s.per_round) {
    ordered_json row;
    row["round"] = r.round;
    row["moves"] = r.moves;
    row["bytes"] = r.bytes;
    row["peak_send"] = r.peak_send;
    row["peak_receive"] = r.peak_receive;
    if (s.limits.max_bytes_per_node || s.limits.node_bandwidth) {
      row["peak_send_bytes"] = r.peak_send_bytes;
      row["peak_receive_bytes"] = r.peak_receive_bytes;
    }
    if (s.limits.node_bandwidth) row["estimated_seconds"] = r.estimated_seconds(*s.limits.node_bandwidth);
    rounds.push_back(std::move(row));
  }
  return out;
}

std::string schedule_text(const PlanSummary& p) {
  const ScheduleSummary& s = *p.schedule;
  std::string limits;
  if (s.limits.max_moves_per_node) limits += fmt::format("{} moves", *s.limits.max_moves_per_node);
  if (s.limits.max_bytes_per_node)
    limits += fmt::format("{}{} bytes", limits.empty() ? "" : ", ", *s.limits.max_bytes_per_node);
  std::string out = fmt::format(
      "  {} move row(s) in {} round(s), lower bound {} (moves {}, bytes {}); at most {} sent and "
      "received per node per round\n",
      p.rows, s.rounds, s.lower_bound, s.unit_bound, s.byte_bound, limits);
  if (s.oversize_keys)
    out += fmt::format("  {} key(s) larger than the byte limit, each in a round of its own\n",
                       s.oversize_keys);
  if (const auto seconds = s.estimated_seconds())
    out += fmt::format("  estimated time {} at {} bytes/s per node (each round: its busiest node's bytes "
                       "sent or received / bandwidth)\n",
                       duration_text(*seconds), *s.limits.node_bandwidth);
  return out;
}

}  // namespace

// In binary64 throughout: a sum of rounds' times can pass 2^64 s (bytes up to 2^64 - 1 at
// 1 byte/s), where an integer conversion would wrap.
std::string duration_text(double seconds) {
  if (seconds < 60) return fmt::format("{:.1f} s", seconds);
  const double total = std::round(seconds);
  const double minutes = std::floor(total / 60);
  if (total < 3600) return fmt::format("{:.0f} min {:.0f} s ({:.0f} s)", minutes, total - 60 * minutes, seconds);
  return fmt::format("{:.0f} h {:.0f} min ({:.0f} s)", std::floor(total / 3600), std::fmod(minutes, 60), seconds);
}

static ordered_json rule_json(const PlacementRule& r) {
  ordered_json out;
  out["replicas"] = r.replicas;
  out["distinct"] = r.distinct.empty() ? ordered_json(nullptr) : ordered_json(r.distinct);
  out["partial"] = r.partial;
  return out;
}

std::string summary_json(const PlanSummary& s) {
  ordered_json out;
  if (s.from_placement.empty())
    out["from_version"] = s.from_version;
  else
    out["from_placement"] = s.from_placement;
  out["to_version"] = s.to_version;
  out["replicas"] = s.replicas;
  if (s.from_replicas != s.replicas) out["from_replicas"] = s.from_replicas;
  // Contract §8: the rule each view placed by (they differ when the plan migrates it).
  out["from_rule"] = rule_json(s.from_rule);
  out["to_rule"] = rule_json(s.to_rule);
  out["keys"] = s.read.keys;
  out["moved"] = s.moved.keys;
  out["stayed"] = s.stayed.keys;
  if (s.single()) {
    out["moved_fraction"] = s.moved_fraction();
    out["ideal_fraction"] = s.ideal_fraction;
    if (s.expected_fraction) out["expected_fraction"] = *s.expected_fraction;
  } else {
    // Contract §7: like with like. `moved` above is the keys whose set changed.
    out["owner_changes"] = s.owner_changes.keys;
    out["owner_changes_fraction"] = s.owner_changes_fraction();
    out["owner_ideal_fraction"] = s.ideal_fraction;
    out["slot_moves"] = s.rows;
    out["slot_moves_fraction"] = s.slot_moves_fraction();
    out["slot_ideal_fraction"] = s.slot_ideal_fraction();
    out["set_changed"] = s.moved.keys;
    out["set_changed_fraction"] = s.moved_fraction();
  }
  // Contract §9: each view with cuts gives its overflow keys.
  if (s.from_overflow) out["from_overflow_keys"] = *s.from_overflow;
  if (s.to_overflow) out["to_overflow_keys"] = *s.to_overflow;
  if (s.plain_moved) {  // contract §9: the plan without cuts, in the unit of `moved`
    out["plain_moved"] = s.plain_moved->keys;
    out["plain_moved_fraction"] = s.plain_moved_fraction();
    if (s.has_bytes) out["plain_bytes_moved"] = s.plain_moved->bytes;
    if (s.has_requests) out["plain_requests_moved"] = s.plain_moved->requests;
  }
  if (s.has_bytes) {
    out["bytes"] = s.read.bytes;
    out["bytes_moved"] = s.moved.bytes;
    if (!s.single()) out["bytes_set_changed"] = s.moved.bytes;
    out["bytes_copied"] = s.bytes_copied();
  }
  if (s.has_requests) out["requests"] = s.read.requests, out["requests_moved"] = s.moved.requests;
  out["rows"] = s.rows;
  if (!s.schedule) out["batch_size"] = s.batch_size;
  out["batches"] = s.batches;
  if (s.schedule) {
    if (const auto seconds = s.schedule->estimated_seconds()) out["estimated_seconds"] = *seconds;
    out["schedule"] = schedule_json(*s.schedule);
  }
  if (s.transitions)
    out["transitions"] = {{"copy", s.transitions->copies}, {"switch", s.transitions->switches},
                          {"retire", s.transitions->retires}};
  out["units"] = s.single() ? "keys" : "replica slots";
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

// Contract §9: "; overflow keys: v1 3, v2 0" for the views with cuts, then what the plan
// without cuts moves ("; without cuts 812 (8.12%)"); "" when neither view has cuts.
std::string overflow_text(const PlanSummary& s) {
  std::string out;
  if (s.from_overflow) out += fmt::format("{} {}", from_name(s), *s.from_overflow);
  if (s.to_overflow) out += fmt::format("{}v{} {}", out.empty() ? "" : ", ", s.to_version, *s.to_overflow);
  if (!out.empty()) out.insert(0, "; overflow keys: ");
  if (s.plain_moved)
    out += fmt::format("; without cuts {} ({})", s.plain_moved->keys, percent(s.plain_moved_fraction()));
  return out;
}

// R > 1 (contract §7): owner changes vs the owner ideal, slot moves vs the slot ideal,
// changed sets without an ideal.
std::string replicated_headline(const PlanSummary& s) {
  return overflow_text(s).insert(0, fmt::format(
      "plan {} -> v{}, R = {}: {} keys; owner changes {} ({}), owner ideal {}; replica-slot "
      "moves {} ({} of R x keys), slot ideal {}; keys whose replica set changed {} ({})",
      from_name(s), s.to_version,
      s.from_replicas == s.replicas ? std::to_string(s.replicas)
                                    : fmt::format("{} -> {}", s.from_replicas, s.replicas),
      s.read.keys, s.owner_changes.keys,
      percent(s.owner_changes_fraction()), percent(s.ideal_fraction), s.rows,
      percent(s.slot_moves_fraction()), percent(s.slot_ideal_fraction()), s.moved.keys,
      percent(s.moved_fraction())));
}

std::string summary_text(const PlanSummary& s) {
  std::string out =
      s.single()
          ? fmt::format("plan {} -> v{}: {} keys, {} moved ({}), ideal {}{}{}\n", from_name(s),
                        s.to_version, s.read.keys, s.moved.keys, percent(s.moved_fraction()),
                        percent(s.ideal_fraction),
                        s.expected_fraction
                            ? fmt::format(", expected for rendezvous {}", percent(*s.expected_fraction))
                            : "",
                        overflow_text(s))
          : replicated_headline(s) + "\n";
  if (!(s.from_rule == s.to_rule))  // contract §8: a migration of the rule names both
    out += fmt::format("  rule ({}) -> ({})\n", describe(s.from_rule), describe(s.to_rule));
  const char* unit = s.single() ? "keys" : "replica slots";
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
  if (s.has_bytes) {
    // What the disks see: the bytes of every copy, and each node's fill (its replicas'
    // bytes) after the plan, the fullest first.
    out += s.single() ? fmt::format("  bytes copied {} of {}\n", s.bytes_copied(), s.read.bytes)
                      : fmt::format("  bytes copied {} (keys whose replica set changed: {} bytes) of {} "
                                    "bytes of keys\n",
                                    s.bytes_copied(), s.moved.bytes, s.read.bytes);
    unit = "bytes held";
    top("nodes after the plan", [](const NodeFlow& f) { return f.after.bytes; });
  }
  if (s.schedule) return out + schedule_text(s);
  out += fmt::format("  {} move row(s) in {} batch(es) of at most {}\n", s.rows, s.batches,
                     s.batch_size);
  return out;
}

namespace {

// Beyond this many nodes a bar per node is unreadable (and wider than 2000 px): the chart
// shows the nodes with the most moves, and the load as a distribution.
constexpr std::size_t kMaxNodeBars = 24;
constexpr std::size_t kLoadBins = 20;

// "node-2" before "node-10": digit runs compare as numbers, the rest bytewise.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      std::size_t ei = i, ej = j;
      while (ei < a.size() && digit(a[ei])) ++ei;
      while (ej < b.size() && digit(b[ej])) ++ej;
      std::size_t si = i, sj = j;  // leading zeros do not count
      while (si + 1 < ei && a[si] == '0') ++si;
      while (sj + 1 < ej && b[sj] == '0') ++sj;
      if (ei - si != ej - sj) return ei - si < ej - sj;
      if (const int c = a.compare(si, ei - si, b, sj, ej - sj); c != 0) return c < 0;
      i = ei, j = ej;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]);
    ++i, ++j;
  }
  if (a.size() - i != b.size() - j) return a.size() - i < b.size() - j;
  return a < b;
}

// Node counts per bin of load / target share (1 = exactly its share), kLoadBins equal bins
// over [0, the largest ratio of either view]: a ratio, so weight classes compare alike.
void load_distribution(const PlanSummary& s, svg::BarPanel& load, svg::Series& before,
                       svg::Series& after) {
  double total_before = 0, total_after = 0;
  for (const NodeFlow& f : s.nodes)
    total_before += static_cast<double>(f.before.keys), total_after += static_cast<double>(f.after.keys);
  auto ratio = [](std::uint64_t keys, double total, double target) {
    return target > 0 && total > 0 ? static_cast<double>(keys) / total / target : -1.0;  // -1: not in the view
  };
  double most = 1e-9;
  for (const NodeFlow& f : s.nodes)
    most = std::max({most, ratio(f.before.keys, total_before, f.target_before),
                     ratio(f.after.keys, total_after, f.target_after)});
  const double width = most / kLoadBins;
  before.values.assign(kLoadBins, 0.0);
  after.values.assign(kLoadBins, 0.0);
  auto add = [&](svg::Series& series, double r) {
    if (r < 0) return;
    series.values[std::min<std::size_t>(kLoadBins - 1, static_cast<std::size_t>(r / width))] += 1;
  };
  for (const NodeFlow& f : s.nodes) {
    add(before, ratio(f.before.keys, total_before, f.target_before));
    add(after, ratio(f.after.keys, total_after, f.target_after));
  }
  for (std::size_t b = 0; b < kLoadBins; ++b) load.categories.push_back(fmt::format("{:.2f}", width * static_cast<double>(b)));
  load.title = fmt::format("Nodes by load / target share ({} nodes; bins of {:.3f})", s.nodes.size(), width);
  load.x_label = "load / target share (1 = exactly its share), bin start";
  load.y_label = "nodes";
}

}  // namespace

std::string plan_svg(const PlanSummary& s) {
  svg::BarPanel flows;
  flows.title = fmt::format("Flows per node, {} -> v{}", from_name(s), s.to_version);
  flows.x_label = "node";
  flows.y_label = s.single() ? "keys moved (count)" : "replica slots moved (count)";
  svg::Series in{"in", {}}, out{"out", {}};
  svg::BarPanel load;
  load.title = "Load per node";
  load.x_label = "node";
  load.y_label = s.single() ? "keys owned (count)" : "replica slots held (count)";
  svg::Series before{from_name(s), {}}, after{fmt::format("v{}", s.to_version), {}};
  std::vector<const NodeFlow*> shown;
  for (const NodeFlow& f : s.nodes) shown.push_back(&f);
  std::stable_sort(shown.begin(), shown.end(),
                   [](const NodeFlow* a, const NodeFlow* b) { return natural_less(a->id, b->id); });
  const bool many = s.nodes.size() > kMaxNodeBars;
  if (many) {
    std::stable_sort(shown.begin(), shown.end(), [](const NodeFlow* a, const NodeFlow* b) {
      return a->in.keys + a->out.keys > b->in.keys + b->out.keys;
    });
    shown.resize(kMaxNodeBars);
    std::stable_sort(shown.begin(), shown.end(),
                     [](const NodeFlow* a, const NodeFlow* b) { return natural_less(a->id, b->id); });
    flows.title += fmt::format(" (the {} nodes with the most moves, of {})", kMaxNodeBars,
                               s.nodes.size());
    load_distribution(s, load, before, after);
  }
  for (const NodeFlow* f : shown) {
    flows.categories.push_back(f->id);
    in.values.push_back(static_cast<double>(f->in.keys));
    out.values.push_back(static_cast<double>(f->out.keys));
    if (many) continue;
    load.categories.push_back(f->id);
    before.values.push_back(static_cast<double>(f->before.keys));
    after.values.push_back(static_cast<double>(f->after.keys));
  }
  flows.series = {in, out};
  load.series = {before, after};
  const std::string title =
      s.single() ? fmt::format("hrw plan: {} moved ({}), ideal {}", s.moved.keys,
                                    percent(s.moved_fraction()), percent(s.ideal_fraction))
                      : fmt::format("hrw plan, R = {}: owner changes {} (ideal {}); slot moves {} "
                                    "(ideal {}); sets changed {}",
                                    s.replicas, percent(s.owner_changes_fraction()),
                                    percent(s.ideal_fraction), percent(s.slot_moves_fraction()),
                                    percent(s.slot_ideal_fraction()), s.moved.keys);
  return svg::render(title, {flows, load});
}

}  // namespace hrw
