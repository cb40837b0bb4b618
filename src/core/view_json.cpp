// The one serialiser of a view (view_json.hpp): one document, written as JSON for files and
// as CBOR for pickles. The reader is cluster_view.cpp's spec_from_document.
#include "hrw/view_json.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "text_util.hpp"

namespace hrw {

using nlohmann::ordered_json;

ClusterSpec spec_of(const ClusterView& v) {
  ClusterSpec s;
  s.source = v.source();
  s.seed = v.seed();
  s.hash = v.hash();
  s.version = v.version();
  for (const Node& n : v.nodes())
    s.nodes.push_back(
        {n.id, n.has_weight ? std::optional<double>(n.weight) : std::nullopt, n.labels, n.cut});
  if (const Hierarchy* h = v.hierarchy()) s.hierarchy = h->labels();
  s.rule = v.rule();
  return s;
}

namespace {

// Every field of the spec, in the order the README shows them. One line per field.
ordered_json document(const ClusterSpec& spec) {
  ordered_json out;
  out["version"] = spec.version;
  out["seed"] = spec.seed;
  out["hash"] = std::string(to_string(spec.hash));
  if (spec.rule) {
    ordered_json& rule = out["rule"];
    rule["replicas"] = spec.rule->replicas;
    if (!spec.rule->distinct.empty()) rule["distinct"] = spec.rule->distinct;
    rule["partial"] = spec.rule->partial;
  }
  if (spec.hierarchy) out["hierarchy"] = *spec.hierarchy;
  ordered_json& nodes = out["nodes"] = ordered_json::array();
  for (const NodeSpec& n : spec.nodes) {
    ordered_json node;
    node["id"] = n.id;
    if (n.weight) node["weight"] = *n.weight;  // nlohmann prints doubles round-trip exact
    for (const auto& [name, value] : n.labels) node[name] = value;
    if (n.cut != 0) node["cut"] = n.cut;  // contract §9: omitted when 0 (the default)
    nodes.push_back(std::move(node));
  }
  return out;
}

void require_utf8(std::string_view bytes, const ClusterSpec& spec, std::string_view what) {
  if (!valid_utf8(bytes))
    throw InputError(fmt::format("{}: {} {} is not UTF-8: a cluster file (JSON) cannot hold it",
                                 spec.source, what, quote_for_message(bytes)));
}

}  // namespace

std::string view_json(const ClusterSpec& spec) {
  require_utf8(spec.seed, spec, "the seed");
  if (spec.rule) require_utf8(spec.rule->distinct, spec, "rule.distinct");
  if (spec.hierarchy)
    for (const std::string& l : *spec.hierarchy) require_utf8(l, spec, "hierarchy label");
  for (const NodeSpec& n : spec.nodes) {
    require_utf8(n.id, spec, "node id");
    for (const auto& [name, value] : n.labels) {
      require_utf8(name, spec, "label name");
      require_utf8(value, spec, "label value");
    }
  }
  return document(spec).dump(2, ' ', false, ordered_json::error_handler_t::strict) + "\n";
}

std::string view_json(const ClusterView& view) { return view_json(spec_of(view)); }

std::string view_cbor(const ClusterSpec& spec) {
  const std::vector<std::uint8_t> bytes = ordered_json::to_cbor(document(spec));
  return std::string(bytes.begin(), bytes.end());
}

}  // namespace hrw
