// Parsing and validating cluster views. Validation happens once, in ClusterView's
// constructor; parsers only check shapes so that CLI overrides can be applied in between.
#include "hrw/cluster_view.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/hierarchy.hpp"
#include "json_errors.hpp"
#include "text_util.hpp"

namespace hrw {

using nlohmann::json;

std::string_view to_string(HashMode mode) {
  return mode == HashMode::fnv1a ? "fnv1a" : "fnv1a-fmix";
}

HashMode parse_hash_mode(std::string_view text, std::string_view field) {
  if (text == "fnv1a-fmix") return HashMode::fnv1a_fmix;
  if (text == "fnv1a") return HashMode::fnv1a;
  throw InputError(fmt::format("{}: unknown hash mode {} (expected fnv1a-fmix or fnv1a)",
                               field, quote_for_message(text)));
}

bool id_less(std::string_view a, std::string_view b) {
  // string_view compares with char_traits<char>, whose order for bytes >= 0x80 is the
  // unsigned order of memcmp; written out to make the contract's rule explicit.
  const std::size_t n = std::min(a.size(), b.size());
  const int c = n ? std::memcmp(a.data(), b.data(), n) : 0;
  return c < 0 || (c == 0 && a.size() < b.size());
}

namespace {

// Watches the parse: refuses a repeated key in one object (readers could keep different
// ones) and nesting deeper than the format needs (no stack exhaustion), and knows where it
// is ("nodes[2].weight") for the parser's errors. A SAX handler over nlohmann's DOM builder,
// because json::parse's callback form is quadratic in the node count.
class JsonGuard {
 public:
  JsonGuard(const std::string& source, json& doc) : source_(source), dom_(doc, true) {}

  bool null() { return value(), dom_.null(); }
  bool boolean(bool v) { return value(), dom_.boolean(v); }
  bool number_integer(json::number_integer_t v) { return value(), dom_.number_integer(v); }
  bool number_unsigned(json::number_unsigned_t v) { return value(), dom_.number_unsigned(v); }
  bool number_float(json::number_float_t v, const json::string_t& s) {
    return value(), dom_.number_float(v, s);
  }
  bool string(json::string_t& v) { return value(), dom_.string(v); }
  bool binary(json::binary_t& v) { return value(), dom_.binary(v); }
  bool start_object(std::size_t n) { return start(false), dom_.start_object(n); }
  bool start_array(std::size_t n) { return start(true), dom_.start_array(n); }
  bool end_object() { return frames_.pop_back(), dom_.end_object(); }
  bool end_array() { return frames_.pop_back(), dom_.end_array(); }
  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    if (!f.keys.insert(f.key).second)
      throw InputError(fmt::format("{}: {}: field {} appears twice in one object", source_,
                                   path(), quote_for_message(f.key)));
    return dom_.key(k);
  }
  template <class Exception>
  bool parse_error(std::size_t position, const std::string& token, const Exception& e) {
    return dom_.parse_error(position, token, e);  // throws e
  }

  // Where the parser is, as a JSON path from the top ("nodes[2].weight"); "the top level".
  std::string path() const {
    std::string out;
    for (const Frame& f : frames_) {
      if (f.array) {
        if (f.count) out += fmt::format("[{}]", f.count - 1);
      } else if (!f.key.empty() || !f.keys.empty()) {
        if (!out.empty()) out += '.';
        out += printable(f.key);
      }
    }
    return out.empty() ? "the top level" : out;
  }

 private:
  struct Frame {
    bool array;
    std::size_t count;  // elements started, arrays only
    std::string key;    // the latest key, objects only
    std::set<std::string> keys;
  };
  void value() {
    if (!frames_.empty() && frames_.back().array) ++frames_.back().count;
  }
  void start(bool array) {
    value();
    if (frames_.size() >= kMaxJsonDepth)
      throw InputError(fmt::format("{}: {}: JSON nested deeper than {} levels", source_, path(),
                                   kMaxJsonDepth));
    frames_.push_back({array, 0, {}, {}});
  }
  const std::string& source_;
  nlohmann::detail::json_sax_dom_parser<json> dom_;
  std::vector<Frame> frames_;
};

NodeSpec parse_node(const json& item, std::size_t index, const std::string& source) {
  const std::string where = fmt::format("{}: nodes[{}]", source, index);
  NodeSpec node;
  if (item.is_string()) {
    node.id = item.get<std::string>();
    return node;
  }
  if (!item.is_object())
    throw InputError(fmt::format("{}: a node must be an object or an id string, got {}", where,
                                 item.type_name()));
  auto id = item.find("id");
  if (id == item.end() || !id->is_string())
    throw InputError(fmt::format("{}: field \"id\" (a string) is required", where));
  node.id = id->get<std::string>();
  for (auto& [name, value] : item.items()) {
    if (name == "id") continue;
    if (name == "weight") {
      if (!value.is_number())
        throw InputError(fmt::format("{} ({}): weight must be a number, got {}", where,
                                     quote_for_message(node.id), value.type_name()));
      node.weight = value.get<double>();
      continue;
    }
    if (name == "cut") {  // contract §9: an integer 0 … 2^32 − 1
      if (!value.is_number_unsigned() && !(value.is_number_integer() && value.get<std::int64_t>() >= 0)) {
        throw InputError(fmt::format("{} ({}): cut must be an integer from 0 to 4294967295, got {}",
                                     where, quote_for_message(node.id),
                                     value.is_number() ? printable(value.dump()) : value.type_name()));
      }
      if (value.get<std::uint64_t>() > 0xFFFFFFFFu)
        throw InputError(fmt::format("{} ({}): cut must be an integer from 0 to 4294967295, got {}",
                                     where, quote_for_message(node.id), value.get<std::uint64_t>()));
      node.cut = static_cast<std::uint32_t>(value.get<std::uint64_t>());
      continue;
    }
    if (!value.is_string())
      throw InputError(fmt::format("{} ({}): label {} must be a string, got {}", where,
                                   quote_for_message(node.id), quote_for_message(name),
                                   value.type_name()));
    node.labels.emplace_back(name, value.get<std::string>());
  }
  return node;
}

}  // namespace

namespace {

PlacementRule parse_rule(const json& value, const std::string& source) {
  if (!value.is_object())
    throw InputError(fmt::format("{}: \"rule\" must be an object (replicas, distinct, partial)", source));
  PlacementRule rule;
  for (auto& [name, field] : value.items()) {
    if (name == "replicas") {
      if (!field.is_number_unsigned() || field.get<std::uint64_t>() < 1 ||
          field.get<std::uint64_t>() > UINT32_MAX)
        throw InputError(fmt::format("{}: rule.replicas must be an integer from 1 to {}", source,
                                     UINT32_MAX));
      rule.replicas = static_cast<std::uint32_t>(field.get<std::uint64_t>());
    } else if (name == "distinct") {
      if (!field.is_string() || field.get<std::string>().empty())
        throw InputError(fmt::format("{}: rule.distinct must be a label name (a non-empty string)", source));
      rule.distinct = field.get<std::string>();
    } else if (name == "partial") {
      if (!field.is_boolean())
        throw InputError(fmt::format("{}: rule.partial must be true or false", source));
      rule.partial = field.get<bool>();
    } else {
      throw InputError(fmt::format("{}: unknown field {} in \"rule\" (allowed: replicas, distinct, partial)",
                                   source, quote_for_message(name)));
    }
  }
  return rule;
}

// The document (from JSON text or CBOR) to a spec: the one reader of every field.
ClusterSpec spec_from_document(const json& doc, const std::string& source) {
  if (!doc.is_object())
    throw InputError(fmt::format("{}: the cluster must be a JSON object, got {}", source,
                                 doc.type_name()));
  ClusterSpec spec;
  spec.source = source;
  for (auto& [name, value] : doc.items()) {
    if (name == "version") {
      if (!value.is_number_integer() ||
          (value.is_number_unsigned() && value.get<std::uint64_t>() > INT64_MAX))
        throw InputError(fmt::format("{}: \"version\" must be an integer from {} to {}", source,
                                     INT64_MIN, INT64_MAX));
      spec.version = value.get<std::int64_t>();
    } else if (name == "seed") {
      if (!value.is_string())
        throw InputError(fmt::format("{}: \"seed\" must be a string", source));
      spec.seed = value.get<std::string>();
    } else if (name == "hash") {
      if (!value.is_string())
        throw InputError(fmt::format("{}: \"hash\" must be a string", source));
      spec.hash = parse_hash_mode(value.get<std::string>(), source + ": \"hash\"");
    } else if (name == "rule") {
      spec.rule = parse_rule(value, source);
    } else if (name == "hierarchy") {
      if (!value.is_array())
        throw InputError(fmt::format("{}: \"hierarchy\" must be an array of label names", source));
      spec.hierarchy.emplace();
      for (std::size_t i = 0; i < value.size(); ++i) {
        if (!value[i].is_string())
          throw InputError(fmt::format("{}: hierarchy[{}] must be a label name (a string), got {}",
                                       source, i, value[i].type_name()));
        spec.hierarchy->push_back(value[i].get<std::string>());
      }
    } else if (name == "nodes") {
      if (!value.is_array())
        throw InputError(fmt::format("{}: \"nodes\" must be an array", source));
      for (std::size_t i = 0; i < value.size(); ++i)
        spec.nodes.push_back(parse_node(value[i], i, source));
    } else {
      // Typos ("seeds", "hash_mode") must not silently change placement.
      throw InputError(fmt::format(
          "{}: unknown top-level field {} (allowed: version, seed, hash, rule, hierarchy, nodes)",
          source, quote_for_message(name)));
    }
  }
  if (!doc.contains("nodes"))
    throw InputError(fmt::format("{}: field \"nodes\" is required", source));
  return spec;
}

}  // namespace

ClusterSpec parse_cluster_json(std::string_view text, const std::string& source) {
  if (text.size() > kMaxClusterFileBytes)
    throw InputError(fmt::format("{}: the cluster file is larger than the {} MiB limit", source,
                                 kMaxClusterFileBytes >> 20));
  json doc;
  JsonGuard guard(source, doc);
  try {
    json::sax_parse(text.begin(), text.end(), &guard);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: {}", source, json_parse_error(text, e)));
  } catch (const json::out_of_range&) {  // the one other error the parser raises
    throw InputError(fmt::format("{}: {}: number too large for a double", source, guard.path()));
  }
  return spec_from_document(doc, source);
}

ClusterSpec parse_view_cbor(std::string_view bytes, const std::string& source) {
  json doc;
  try {
    doc = json::from_cbor(bytes.begin(), bytes.end());
  } catch (const json::exception&) {
    throw InputError(fmt::format("{}: not a serialised cluster view", source));
  }
  return spec_from_document(doc, source);
}

ClusterSpec load_cluster_file(const std::string& path) {
  return parse_cluster_json(read_whole_file(path, kMaxClusterFileBytes), path);
}

ClusterSpec cluster_from_id_list(std::string_view comma_separated) {
  ClusterSpec spec;
  spec.source = std::string(setting_name(Setting::node_list));
  for (std::string_view id : split(comma_separated, ',')) spec.nodes.push_back({std::string(id), {}, {}});
  return spec;
}

void apply_weight_list(ClusterSpec& spec, std::string_view comma_separated) {
  const auto items = split(comma_separated, ',');
  if (items.size() != spec.nodes.size())
    throw InputError(Setting::weight_list,
                     fmt::format(": {} weights for {} nodes (give exactly one per node)",
                                 items.size(), spec.nodes.size()));
  for (std::size_t i = 0; i < items.size(); ++i) {
    auto w = parse_double(items[i]);
    if (!w)
      throw InputError(Setting::weight_list,
                       fmt::format(": weight of nodes[{}] ({}) is not a number: {}", i,
                                   quote_for_message(spec.nodes[i].id),
                                   quote_for_message(items[i])));
    spec.nodes[i].weight = *w;
  }
}

namespace {

// A label's name: not empty, and not one of a node's own fields (a view written out as JSON
// could not tell the two apart).
bool is_label_name(std::string_view name) {
  return !name.empty() && name != "id" && name != "weight" && name != "cut";
}

// The rules of contract §6 on the list itself (not on the nodes): "" when it is a valid
// list, else what is wrong ("label "zone" is repeated (levels 1 and 2)").
std::string hierarchy_list_problem(const std::vector<std::string>& labels) {
  if (labels.empty())
    return "the list is empty (name at least one label, top level first, or leave it out for a flat view)";
  for (std::size_t j = 0; j < labels.size(); ++j) {
    if (!is_label_name(labels[j]))
      return fmt::format("level {} {} is not a label name", j + 1, quote_for_message(labels[j]));
    for (std::size_t k = 0; k < j; ++k)
      if (labels[k] == labels[j])
        return fmt::format("label {} is repeated (levels {} and {})", quote_for_message(labels[j]),
                           k + 1, j + 1);
  }
  return {};
}

}  // namespace

void apply_hierarchy_list(ClusterSpec& spec, std::string_view comma_separated) {
  std::vector<std::string> labels;
  if (!comma_separated.empty())
    for (std::string_view label : split(comma_separated, ',')) labels.emplace_back(label);
  // Refused here, naming the list, so that the message blames it and not the cluster file.
  if (std::string problem = hierarchy_list_problem(labels); !problem.empty())
    throw InputError(Setting::hierarchy_list, ": " + problem);
  spec.hierarchy = std::move(labels);
}

std::optional<std::string_view> Node::label(std::string_view name) const {
  for (auto& [key, value] : labels)
    if (key == name) return std::string_view(value);
  return std::nullopt;
}

ClusterView::ClusterView(ClusterSpec spec)
    : source_(std::move(spec.source)),
      seed_(std::move(spec.seed)),
      hash_(spec.hash),
      version_(spec.version) {
  if (spec.nodes.empty()) throw InputError(fmt::format("{}: the cluster has no nodes", source_));
  for (std::size_t i = 0; i < spec.nodes.size(); ++i) {
    NodeSpec& in = spec.nodes[i];
    if (in.id.empty())
      throw InputError(fmt::format("{}: nodes[{}] has an empty id", source_, i));
    // A node's own fields are not labels: a view written out could not say which it was.
    for (std::size_t a = 0; a < in.labels.size(); ++a) {
      const std::string& name = in.labels[a].first;
      if (!is_label_name(name))
        throw InputError(fmt::format("{}: node {}: {} is not a label name (id, weight and cut are the node's own "
                                     "fields)",
                                     source_, quote_for_message(in.id), quote_for_message(name)));
      for (std::size_t b = 0; b < a; ++b)
        if (in.labels[b].first == name)
          throw InputError(fmt::format("{}: node {}: label {} is given twice", source_, quote_for_message(in.id),
                                       quote_for_message(name)));
    }
    Node node{std::move(in.id), 1.0, in.weight.has_value(), std::move(in.labels), in.cut};
    has_cuts_ = has_cuts_ || in.cut != 0;
    if (in.weight) {
      const double w = *in.weight;
      if (!std::isfinite(w) || !(w > 0))
        throw InputError(fmt::format("{}: node {}: weight must be finite and > 0, got {}",
                                     source_, quote_for_message(node.id), w));
      if (w < kMinWeight || w > kMaxWeight)
        throw InputError(fmt::format("{}: node {}: weight must be from {:g} to {:g}, got {:g}",
                                     source_, quote_for_message(node.id), kMinWeight, kMaxWeight, w));
      node.weight = w;
      weighted_ = true;
    }
    nodes_.push_back(std::move(node));
  }
  std::sort(nodes_.begin(), nodes_.end(),
            [](const Node& a, const Node& b) { return id_less(a.id, b.id); });
  for (std::size_t i = 1; i < nodes_.size(); ++i)
    if (nodes_[i].id == nodes_[i - 1].id)
      throw InputError(fmt::format("{}: duplicate node id {}", source_, quote_for_message(nodes_[i].id)));
  seed_state_ = fnv1a32_continue(kFnvOffsetBasis, seed_);
  // One pass for the per-view figures (O(1) afterwards): the total weight, in index order,
  // and the label names.
  std::set<std::string> names;  // std::string orders as memcmp
  for (const Node& n : nodes_) {
    total_weight_ += n.weight;
    for (const auto& [name, value] : n.labels) names.insert(name);
  }
  label_names_.assign(names.begin(), names.end());
  if (spec.hierarchy) {
    // Contract §9: v3 defines cuts for flat views only.
    for (const Node& n : nodes_)
      if (n.cut != 0)
        throw InputError(fmt::format("{}: node {}: cut {} in a hierarchical view (cuts are "
                                     "defined for flat views only; remove the cut or the "
                                     "hierarchy)",
                                     source_, quote_for_message(n.id), n.cut));
    build_hierarchy(std::move(*spec.hierarchy));
  }
  if (spec.rule) check_rule(*spec.rule);
  rule_ = std::move(spec.rule);
}

std::string describe(const PlacementRule& rule) {
  std::string out = fmt::format("replicas {}", rule.replicas);
  if (!rule.distinct.empty()) out += fmt::format(", distinct {}", quote_for_message(rule.distinct));
  out += rule.partial ? ", partial" : ", not partial";
  return out;
}

std::string ClusterView::label_list() const {
  if (label_names_.empty()) return "it has no labels";
  std::string out = "its labels: ";
  for (std::size_t i = 0; i < label_names_.size(); ++i)
    out += (i ? ", " : "") + quote_for_message(label_names_[i]);
  return out;
}

LabelCoverage ClusterView::label_coverage(std::string_view label) const {
  LabelCoverage c;
  for (std::uint32_t i = 0; i < nodes_.size(); ++i)
    if (!nodes_[i].label(label)) {
      if (c.lacking++ == 0) c.first_lacking = i;
    }
  return c;
}

void ClusterView::check_rule(const PlacementRule& rule) const {
  if (rule.replicas < 1)
    throw InputError(fmt::format("{}: rule.replicas must be at least 1, got {}", source_, rule.replicas));
  if (rule.replicas > nodes_.size())
    throw InputError(fmt::format("{}: rule.replicas {} exceeds the {} node(s) of the view", source_,
                                 rule.replicas, nodes_.size()));
  if (rule.distinct.empty()) return;
  if (hierarchy_ && !hierarchy_->level_of(rule.distinct))
    throw InputError(fmt::format("{}: rule.distinct {} is not a level of the view's hierarchy: with a "
                                 "hierarchy, failure domains are its buckets",
                                 source_, quote_for_message(rule.distinct)));
  if (label_coverage(rule.distinct).lacking == nodes_.size())
    throw InputError(fmt::format("{}: rule.distinct {} is a label no node carries ({})", source_,
                                 quote_for_message(rule.distinct), label_list()));
}

void ClusterView::build_hierarchy(std::vector<std::string> labels) {
  if (std::string problem = hierarchy_list_problem(labels); !problem.empty())
    throw InputError(fmt::format("{}: hierarchy: {}", source_, problem));
  std::vector<std::vector<std::string_view>> values(nodes_.size());
  std::vector<double> weights(nodes_.size());
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    for (const std::string& label : labels) {
      const auto v = nodes_[i].label(label);
      if (!v)
        throw InputError(fmt::format("{}: node {} lacks hierarchy label {}", source_,
                                     quote_for_message(nodes_[i].id), quote_for_message(label)));
      values[i].push_back(*v);
    }
    weights[i] = nodes_[i].weight;
  }
  hierarchy_ = std::make_shared<const Hierarchy>(std::move(labels), values, weights);
}

std::optional<std::uint32_t> ClusterView::find(std::string_view id) const {
  auto it = std::lower_bound(nodes_.begin(), nodes_.end(), id,
                             [](const Node& n, std::string_view v) { return id_less(n.id, v); });
  if (it == nodes_.end() || it->id != id) return std::nullopt;
  return static_cast<std::uint32_t>(it - nodes_.begin());
}

std::vector<std::uint32_t> ClusterView::domains(std::string_view label) const {
  if (hierarchy_)
    if (auto level = hierarchy_->level_of(label)) return hierarchy_->buckets_of_level(*level);
  std::map<std::string_view, std::uint32_t> numbers;
  std::vector<std::uint32_t> out(nodes_.size());
  std::uint32_t next = 0;
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    auto value = nodes_[i].label(label);
    if (!value) {
      out[i] = next++;
      continue;
    }
    auto [it, inserted] = numbers.emplace(*value, next);
    if (inserted) ++next;
    out[i] = it->second;
  }
  return out;
}

std::uint32_t ClusterView::domain_count(std::string_view label) const {
  auto d = domains(label);
  return d.empty() ? 0 : *std::max_element(d.begin(), d.end()) + 1;
}

IdShares id_shares(const ClusterView& view) {
  IdShares out;
  out.reserve(view.size());
  for (std::uint32_t i = 0; i < view.size(); ++i) out.emplace_back(view.node(i).id, view.share(i));
  return out;
}

double total_variation_distance(const IdShares& a, const IdShares& b) {
  // std::string's order is memcmp order, so the sum runs in the same order for any caller.
  std::map<std::string, double> diff;
  for (auto& [id, share] : a) diff[id] += share;
  for (auto& [id, share] : b) diff[id] -= share;
  double sum = 0;
  for (auto& [id, d] : diff) sum += std::fabs(d);
  return sum / 2;
}


}  // namespace hrw
