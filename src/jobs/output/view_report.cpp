// hrw view show (view_tools.hpp): a view as JSON or as a table that stays readable at 10^4
// nodes (the layout of place's table: every node up to 40 rows, else the ends and a
// distribution).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/view_tools.hpp"

namespace hrw {

namespace {

using nlohmann::ordered_json;

constexpr std::uint32_t kMaxNodeRows = 40, kEnds = 10;

std::string rule_text(const ClusterView& v) {
  return v.rule() ? describe(*v.rule()) : "none (the command's flags decide)";
}

// Per label: how many nodes carry it and its failure domains (contract §3: a node without
// the label is a domain of its own; §6: in a hierarchy a level's domains are its buckets).
struct LabelRow {
  std::string name;
  std::size_t carried;
  std::uint32_t domains;
};
std::vector<LabelRow> label_rows(const ClusterView& v) {
  std::vector<LabelRow> rows;
  for (const std::string& l : v.label_names())
    rows.push_back({l, v.size() - v.label_coverage(l).lacking, v.domain_count(l)});
  return rows;
}

}  // namespace

std::string view_show_json(const ClusterView& v, ViewFill fill) {
  ordered_json out;
  out["source"] = v.source();
  out["version"] = v.version();
  out["seed"] = v.seed();
  out["hash"] = to_string(v.hash());
  out["weighted"] = v.weighted();
  out["node_count"] = v.size();
  out["total_weight"] = v.total_weight();
  out["has_cuts"] = v.has_cuts();
  if (fill.stats) {
    out["keys"] = fill.stats->read().keys;
    out["replicas"] = fill.stats->replicas();
    if (fill.has_bytes) out["bytes"] = fill.stats->read().bytes;
  }
  if (v.rule())
    out["rule"] = {{"replicas", v.rule()->replicas},
                   {"distinct", v.rule()->distinct.empty() ? ordered_json(nullptr) : ordered_json(v.rule()->distinct)},
                   {"partial", v.rule()->partial}};
  else
    out["rule"] = nullptr;
  auto& labels = out["labels"] = ordered_json::array();
  for (const LabelRow& l : label_rows(v))
    labels.push_back({{"label", l.name}, {"nodes", l.carried}, {"domains", l.domains}});
  if (const Hierarchy* h = v.hierarchy()) {
    auto& levels = out["hierarchy"] = ordered_json::array();
    for (std::size_t j = 0; j < h->depth(); ++j) {
      ordered_json level;
      level["label"] = h->labels()[j];
      auto& buckets = level["buckets"] = ordered_json::array();
      for (const Bucket& b : h->level(j))
        buckets.push_back({{"name", b.name}, {"weight", b.weight}, {"children", b.children.size()}});
      levels.push_back(std::move(level));
    }
  } else {
    out["hierarchy"] = nullptr;
  }
  auto& nodes = out["nodes"] = ordered_json::array();
  for (std::uint32_t i = 0; i < v.size(); ++i) {
    const Node& n = v.node(i);
    ordered_json row;
    row["id"] = n.id;
    row["weight"] = n.weight;
    row["target_share"] = v.share(i);
    row["cut"] = n.cut;  // contract §9 (0: clears every key)
    if (fill.stats) {
      row["keys_held"] = fill.stats->held(i).keys;
      if (fill.has_bytes) row["bytes_held"] = fill.stats->held(i).bytes;
    }
    ordered_json node_labels = ordered_json::object();
    for (const auto& [name, value] : n.labels) node_labels[name] = value;
    row["labels"] = std::move(node_labels);
    nodes.push_back(std::move(row));
  }
  // Ids and labels are bytes: never refuse to show a view.
  return out.dump(2, ' ', false, ordered_json::error_handler_t::replace) + "\n";
}

std::string view_show_table(const ClusterView& v, ViewFill fill) {
  std::string out = fmt::format("view {}: version {}, {} node(s), {}, seed {}, hash {}\n", v.source(), v.version(),
                                v.size(), v.weighted() ? fmt::format("weighted (total {})", v.total_weight())
                                                       : "unweighted",
                                quote_for_message(v.seed()), to_string(v.hash()));
  out += fmt::format("rule: {}\n", rule_text(v));
  const std::vector<LabelRow> labels = label_rows(v);
  if (labels.empty()) out += "labels: none\n";
  for (const LabelRow& l : labels)
    out += fmt::format("label {}: {} domain(s), carried by {} of {} node(s)\n", quote_for_message(l.name), l.domains,
                       l.carried, v.size());
  if (const Hierarchy* h = v.hierarchy())
    for (std::size_t j = 0; j < h->depth(); ++j) {
      double lo = INFINITY, hi = 0;
      for (const Bucket& b : h->level(j)) lo = std::min(lo, b.weight), hi = std::max(hi, b.weight);
      out += fmt::format("hierarchy level {} {}: {} bucket(s), weight {} to {}\n", j, quote_for_message(h->labels()[j]),
                         h->level(j).size(), lo, hi);
    }
  // Contract §9: a node clears key k when r(k, node) >= cut, so it clears (2^32 - cut) / 2^32
  // of the keys; the column is there only when some cut is not 0.
  std::uint32_t cut_nodes = 0;
  for (const Node& n : v.nodes()) cut_nodes += n.cut != 0;
  if (v.has_cuts())
    out += fmt::format("cuts (contract section 9): {} of {} node(s) clear only part of the keys\n", cut_nodes, v.size());
  // Ids and labels are bytes: a table cell shows control bytes as \xHH, so a terminal
  // never receives an escape sequence or a line break from a view file.
  std::size_t width = 4;
  for (const Node& n : v.nodes()) width = std::max(width, one_line(n.id).size());
  if (fill.stats)
    out += fmt::format("held: the keys{} of every replica each node has, for {} keys placed with R = {}\n",
                       fill.has_bytes ? " and bytes" : "", fill.stats->read().keys, fill.stats->replicas());
  const std::string held_head =
      fill.stats ? fmt::format("  {:>12}{}", "keys held", fill.has_bytes ? fmt::format("  {:>16}", "bytes held") : "")
                 : "";
  out += fmt::format("{:<{}}  {:>12}  {:>9}{}{}  labels\n", "node", width, "weight", "target",
                     v.has_cuts() ? fmt::format("  {:>10}  {:>6}", "cut", "clears") : "", held_head);
  auto line = [&](std::uint32_t i) {
    const Node& n = v.node(i);
    std::string l;
    for (const auto& [name, value] : n.labels) {
      if (!l.empty()) l += ' ';
      l += one_line(name);
      l += '=';
      l += one_line(value);
    }
    const std::string cut =
        v.has_cuts() ? fmt::format("  {:>10}  {:>5.1f}%", n.cut, (4294967296.0 - n.cut) / 4294967296.0 * 100) : "";
    std::string held;
    if (fill.stats) {
      held = fmt::format("  {:>12}", fill.stats->held(i).keys);
      if (fill.has_bytes) held += fmt::format("  {:>16}", fill.stats->held(i).bytes);
    }
    out += fmt::format("{:<{}}  {:>12}  {:>8.4f}%{}{}  {}\n", one_line(n.id), width, n.weight, v.share(i) * 100, cut,
                       held, l);
  };
  const auto count = static_cast<std::uint32_t>(v.size());
  std::vector<std::uint32_t> rows(count);
  for (std::uint32_t i = 0; i < count; ++i) rows[i] = i;
  if (count <= kMaxNodeRows) {
    for (std::uint32_t i : rows) line(i);
    return out;
  }
  // Beyond 40 nodes: the largest and smallest target shares, and the distribution of
  // share × N (1 = a fair share).
  std::stable_sort(rows.begin(), rows.end(), [&](std::uint32_t a, std::uint32_t b) { return v.share(a) > v.share(b); });
  for (std::uint32_t k = 0; k < kEnds; ++k) line(rows[k]);
  out += fmt::format("... {} more nodes (rows above: the {} largest target shares; below: the {} smallest)\n",
                     count - 2 * kEnds, kEnds, kEnds);
  for (std::uint32_t k = count - kEnds; k < count; ++k) line(rows[k]);
  auto q = [&](double f) {  // rows sorted high to low: quantile f is at (1 - f) of the way
    return v.share(rows[static_cast<std::size_t>((1.0 - f) * (count - 1) + 0.5)]) * count;
  };
  out += fmt::format("target share x N over {} nodes: min {:.3f}  p1 {:.3f}  p10 {:.3f}  median {:.3f}  p90 {:.3f}  "
                     "p99 {:.3f}  max {:.3f}\n",
                     count, q(0), q(0.01), q(0.1), q(0.5), q(0.9), q(0.99), q(1));
  return out;
}

}  // namespace hrw
