// `hrw compare` as a table (for people), JSON (for scripts) and CSV (for spreadsheets).
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/compare.hpp"

namespace hrw::compare {
namespace {

std::string describe(const NodeList& nodes) {
  return fmt::format("{} nodes{} ({})", nodes.size(), nodes.weighted ? ", weighted" : "",
                     nodes.source);
}

nlohmann::ordered_json view_json(const NodeList& nodes) {
  nlohmann::ordered_json view;
  view["source"] = nodes.source;
  view["nodes"] = nodes.size();
  view["weighted"] = nodes.weighted;
  view["ids"] = nodes.ids;
  return view;
}

nlohmann::ordered_json stats_json(const LoadStats& s) {
  nlohmann::ordered_json j;
  j["peak_to_mean"] = s.peak_to_mean;
  j["min_to_mean"] = s.min_to_mean;
  j["load_cv"] = s.load_cv;
  j["load_ratio"] = s.ratio;
  return j;
}

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

}  // namespace

std::string format_table(const Report& r) {
  std::string out;
  out += fmt::format("hrw compare: {} keys, from {} to {}\n", r.keys, describe(r.from),
                     describe(r.to));
  out += fmt::format(
      "ideal moved fraction {:.4f} (total variation distance of the shares)\n"
      "ring: {} vnodes/node, maglev: M = {}, bounded: c = {}\n",
      r.ideal_fraction, r.options.vnodes, r.options.maglev_size, r.options.load_factor);
  out += "load = keys on a node / its fair share; cv = std dev of that ratio "
         "(coefficient of variation); before -> after\n\n";
  out += fmt::format("{:<15} {:>7} {:>6}  {:<14}  {:<14}  {:<14}  {:>7}  {:>10}  {}\n", "algorithm",
                     "moved", "/ideal", "peak/mean", "min/mean", "cv", "ns/key", "bytes/node",
                     "note");
  for (const auto& a : r.algorithms) {
    const std::string moved = a.moved_fraction ? fmt::format("{:.4f}", *a.moved_fraction) : "-";
    const std::string ratio = a.moved_fraction && r.ideal_fraction > 0
                                  ? fmt::format("{:.2f}", *a.moved_fraction / r.ideal_fraction)
                                  : "-";
    std::string line = fmt::format(
        "{:<15} {:>7} {:>6}  {:>5.3f} -> {:<5.3f}  {:>5.3f} -> {:<5.3f}  {:>5.3f} -> {:<5.3f}  "
        "{:>7.1f}  {:>10.0f}  {}",
        a.name, moved, ratio, a.before.peak_to_mean, a.after.peak_to_mean, a.before.min_to_mean,
        a.after.min_to_mean, a.before.load_cv, a.after.load_cv, a.ns_per_key, a.bytes_per_node,
        a.note);
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  }
  return out;
}

std::string format_json(const Report& r) {
  nlohmann::ordered_json out;
  out["keys"] = r.keys;
  out["from"] = view_json(r.from);
  out["to"] = view_json(r.to);
  out["options"] = {{"vnodes", r.options.vnodes},
                    {"maglev_size", r.options.maglev_size},
                    {"load_factor", r.options.load_factor}};
  out["ideal_fraction"] = r.ideal_fraction;
  auto& algorithms = out["algorithms"] = nlohmann::ordered_json::array();
  for (const auto& a : r.algorithms) {
    nlohmann::ordered_json j;
    j["name"] = a.name;
    j["moved_fraction"] = a.moved_fraction ? nlohmann::ordered_json(*a.moved_fraction) : nullptr;
    j["note"] = a.note.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(a.note);
    j["peak_to_mean"] = a.after.peak_to_mean;
    j["min_to_mean"] = a.after.min_to_mean;
    j["load_cv"] = a.after.load_cv;
    j["peak_to_mean_before"] = a.before.peak_to_mean;
    j["min_to_mean_before"] = a.before.min_to_mean;
    j["load_cv_before"] = a.before.load_cv;
    j["ns_per_key"] = a.ns_per_key;
    j["bytes_per_node"] = a.bytes_per_node;
    j["before"] = stats_json(a.before);
    j["after"] = stats_json(a.after);
    algorithms.push_back(std::move(j));
  }
  // Node ids are bytes: invalid UTF-8 is shown as U+FFFD rather than refused.
  return out.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string format_csv(const Report& r) {
  std::string out =
      "name,moved_fraction,ideal_fraction,peak_to_mean_before,peak_to_mean,min_to_mean_before,"
      "min_to_mean,load_cv_before,load_cv,ns_per_key,bytes_per_node,note\n";
  for (const auto& a : r.algorithms)
    out += fmt::format("{},{},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.6f},{:.2f},{:.1f},{}\n",
                       csv_field(a.name),
                       a.moved_fraction ? fmt::format("{:.6f}", *a.moved_fraction) : "",
                       r.ideal_fraction, a.before.peak_to_mean, a.after.peak_to_mean,
                       a.before.min_to_mean, a.after.min_to_mean, a.before.load_cv,
                       a.after.load_cv, a.ns_per_key, a.bytes_per_node, csv_field(a.note));
  return out;
}

}  // namespace hrw::compare
