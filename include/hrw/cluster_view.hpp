// The cluster view of the contract (§1): seed, hash mode, version and nodes, validated once.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hrw {

enum class HashMode { fnv1a_fmix, fnv1a };

std::string_view to_string(HashMode mode);
// Throws InputError naming `field` for anything but "fnv1a-fmix" or "fnv1a".
HashMode parse_hash_mode(std::string_view text, std::string_view field = "hash");

// One node as the user wrote it, before validation.
struct NodeSpec {
  std::string id;
  std::optional<double> weight;
  std::vector<std::pair<std::string, std::string>> labels;  // (name, value), e.g. (zone, eu-1a)
  std::uint32_t cut = 0;  // contract §9: the node clears key k when r(k, node) >= cut

  friend bool operator==(const NodeSpec&, const NodeSpec&) = default;
};

// Contract §8: the placement rule a view may carry ("rule": {"replicas": 3, "distinct":
// "zone", "partial": false}). Every computation that places keys in the view uses it.
struct PlacementRule {
  std::uint32_t replicas = 1;  // >= 1
  std::string distinct;        // a label name; empty: no failure-domain constraint
  bool partial = false;

  friend bool operator==(const PlacementRule&, const PlacementRule&) = default;
};
// "replicas 3, distinct zone, not partial": how messages and summaries name a rule.
std::string describe(const PlacementRule& rule);

// Limits of the cluster file (docs/errors.md). Weights: far from the limits of binary64, so
// every rank key ln(u)/w is a normal number (shares follow w/Σw; no ties from underflow or
// overflow) and the sum of any number of weights a view can hold stays finite.
inline constexpr double kMinWeight = 1e-9;
inline constexpr double kMaxWeight = 1e15;
inline constexpr std::size_t kMaxClusterFileBytes = std::size_t{256} << 20;
inline constexpr std::size_t kMaxJsonDepth = 16;  // the format itself needs 3

// A cluster as read from a file or the command line: unvalidated, so that command-line
// overrides (--seed, --hash, --weights) can be applied before the one validation.
struct ClusterSpec {
  std::string source = "cluster";  // file path or "--nodes": prefixes every error message
  std::string seed;
  HashMode hash = HashMode::fnv1a_fmix;
  std::int64_t version = 0;
  std::vector<NodeSpec> nodes;
  // Contract §6: the labels of a hierarchical view, top level first; nullopt: flat.
  std::optional<std::vector<std::string>> hierarchy;
  // Contract §8: nullopt: the view carries no rule (the caller's options apply).
  std::optional<PlacementRule> rule;

  friend bool operator==(const ClusterSpec&, const ClusterSpec&) = default;
};

// Parses the cluster JSON of the README. Malformed JSON is reported with line and column;
// unknown top-level fields, non-object/non-string nodes and non-string labels are refused.
ClusterSpec parse_cluster_json(std::string_view text, const std::string& source);
ClusterSpec load_cluster_file(const std::string& path);
// The CBOR form of the same document (view_json.hpp's view_cbor): any bytes in strings.
ClusterSpec parse_view_cbor(std::string_view bytes, const std::string& source);
// "a,b,c" as given to --nodes.
ClusterSpec cluster_from_id_list(std::string_view comma_separated);
// "1,2.5,3" as given to --weights; the count must equal the node count.
void apply_weight_list(ClusterSpec& spec, std::string_view comma_separated);
// "zone,rack" as given to --hierarchy: replaces the spec's hierarchy ("" gives an empty
// list, which the view refuses).
void apply_hierarchy_list(ClusterSpec& spec, std::string_view comma_separated);

struct Node {
  std::string id;
  double weight = 1.0;
  bool has_weight = false;
  std::vector<std::pair<std::string, std::string>> labels;
  std::uint32_t cut = 0;  // contract §9 (0: clears every key)

  // The label's value, or nullopt when the node lacks it (then it is its own domain).
  std::optional<std::string_view> label(std::string_view name) const;
};

inline constexpr std::uint32_t kNoNode = 0xFFFFFFFFu;

class Hierarchy;

// Contract §8: how many nodes lack a label, and the first of them (index order).
struct LabelCoverage {
  std::size_t lacking = 0;
  std::uint32_t first_lacking = kNoNode;
};

// A validated, immutable view. Nodes are stored sorted by id in memcmp order, so a node's
// index order is the tie order of the contract and results never depend on input order.
class ClusterView {
 public:
  explicit ClusterView(ClusterSpec spec);

  const std::string& source() const { return source_; }
  const std::string& seed() const { return seed_; }
  HashMode hash() const { return hash_; }
  std::int64_t version() const { return version_; }
  bool weighted() const { return weighted_; }
  // Contract §9: true when some node has a non-zero cut (all 0 places exactly as without).
  bool has_cuts() const { return has_cuts_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  std::size_t size() const { return nodes_.size(); }
  const Node& node(std::uint32_t index) const { return nodes_[index]; }
  std::optional<std::uint32_t> find(std::string_view id) const;
  // FNV-1a state after the seed bytes: every key continues from here.
  std::uint32_t seed_state() const { return seed_state_; }
  // The buckets of a hierarchical view (contract §6); nullptr for a flat view.
  const Hierarchy* hierarchy() const { return hierarchy_.get(); }
  // Contract §8: the view's own rule, or nullopt.
  const std::optional<PlacementRule>& rule() const { return rule_; }
  // Every label name some node carries, in memcmp order.
  const std::vector<std::string>& label_names() const { return label_names_; }
  // "its labels: "rack", "zone"" (or "it has no labels"), for messages about a label.
  std::string label_list() const;
  LabelCoverage label_coverage(std::string_view label) const;

  // Failure-domain number of every node for "distinct LABEL": equal values share a number,
  // a node without the label gets a number of its own. Numbers are dense from 0. In a
  // hierarchical view a hierarchy label's domains are its buckets, the tuples (v0, …, vj):
  // racks named alike in two zones are two domains.
  std::vector<std::uint32_t> domains(std::string_view label) const;
  std::uint32_t domain_count(std::string_view label) const;
  // Sum of weights (node count when unweighted), added once at construction in node index
  // order, and each node's target share w_i / sum: O(1) per call.
  double total_weight() const { return total_weight_; }
  double share(std::uint32_t index) const { return nodes_[index].weight / total_weight_; }

 private:
  void build_hierarchy(std::vector<std::string> labels);
  void check_rule(const PlacementRule& rule) const;

  std::string source_;
  std::string seed_;
  HashMode hash_;
  std::int64_t version_;
  bool weighted_ = false;
  bool has_cuts_ = false;
  std::vector<Node> nodes_;
  std::uint32_t seed_state_;
  std::shared_ptr<const Hierarchy> hierarchy_;
  std::optional<PlacementRule> rule_;
  std::vector<std::string> label_names_;
  double total_weight_ = 0;
};

// Shares of nodes by id: (id, w_i / sum w).
using IdShares = std::vector<std::pair<std::string, double>>;
IdShares id_shares(const ClusterView& view);
// ½ Σ |share_A − share_B| over the union of ids (share 0 where absent): the fraction of keys
// any placement must move between two views, the "ideal" of contract §5.
double total_variation_distance(const IdShares& a, const IdShares& b);

// memcmp order of the contract's tie rule: a proper prefix sorts first.
bool id_less(std::string_view a, std::string_view b);

}  // namespace hrw
