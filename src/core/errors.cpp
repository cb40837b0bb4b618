#include "hrw/errors.hpp"

#include <cstdio>
#include <string>

#include "hrw/checked_sum.hpp"

namespace hrw {

std::string_view setting_name(Setting setting) {
  switch (setting) {
    case Setting::none: return "";
    case Setting::replica_count: return "replica count";
    case Setting::distinct_label: return "distinct label";
    case Setting::node_list: return "node list";
    case Setting::weight_list: return "weight list";
    case Setting::key_format: return "key format";
    case Setting::keys_file: return "keys file";
    case Setting::virtual_nodes: return "virtual node count";
    case Setting::maglev_size: return "Maglev table size";
    case Setting::load_factor: return "load factor";
    case Setting::hierarchy_list: return "hierarchy list";
    case Setting::partial_results: return "partial results";
    case Setting::batch_size: return "batch size";
    case Setting::max_moves_per_node: return "moves per node";
    case Setting::max_bytes_per_node: return "bytes per node";
    case Setting::node_bandwidth: return "node bandwidth";
    case Setting::max_moved_fraction: return "moved fraction";
    case Setting::cap_by: return "cap";
    case Setting::step_versions: return "step versions";
    case Setting::chart_file: return "chart file";
    case Setting::placement_file: return "placement file";
    case Setting::thread_count: return "thread count";
    case Setting::ignored_columns: return "the ignored columns";
    case Setting::single_copy: return "single copy";
  }
  return "";
}

InputError sum_overflow(std::string_view what, std::string_view where) {
  std::string message;
  if (!where.empty()) message.append(where).append(": ");
  message.append("the ").append(what).append(" total exceeds ").append(kSumLimitText);
  return InputError(message);
}

std::string_view hint_text(Hint hint) {
  switch (hint) {
    case Hint::none: return "";
    case Hint::accept_partial: return " (ask for partial results to accept fewer)";
  }
  return "";
}

InputError::InputError(Setting setting, std::string detail, Hint hint)
    : std::runtime_error(std::string(setting_name(setting)) + detail + std::string(hint_text(hint))),
      setting_(setting),
      detail_(std::move(detail)),
      hint_(hint) {}

InputError::InputError(Setting setting, std::string detail, std::vector<Setting> mentioned)
    : std::runtime_error(std::string(setting_name(setting)) +
                         fill(detail, mentioned, [](Setting s) { return std::string(setting_name(s)); })),
      setting_(setting),
      detail_(std::move(detail)),
      mentioned_(std::move(mentioned)) {}

std::string one_line(std::string_view message) {
  std::string out;
  for (const char c : message) {
    const auto b = static_cast<unsigned char>(c);
    if (b < 0x20 || b == 0x7F) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", b);
      out += hex;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace hrw
