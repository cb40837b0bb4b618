// `hrw compare`: rendezvous against the classic alternatives (modulo, ring, jump, Maglev,
// Redis-style slots, bounded loads) on the user's own membership change. Users choose a
// placement scheme before adopting one; this puts the numbers side by side.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"

namespace hrw::compare {

// The nodes of one view in the order the user listed them. ClusterView sorts by id, but
// index-based schemes (modulo, jump, slots) number their buckets in list order: with
// node-0..node-10, sorting would put node-10 in the middle and turn "add one node at the
// end" into "insert one in the middle".
struct NodeList {
  std::string source;               // "--from 10", a file path: prefixes error messages
  std::vector<std::string> ids;
  std::vector<double> weights;      // one per id; all 1 when the view gives none
  bool weighted = false;            // at least one weight was given (contract §1)
  std::string seed;                 // used by the hrw-* schemes only
  HashMode hash = HashMode::fnv1a_fmix;  // used by hrw-weighted and hrw-bounded
  // Used by hrw-tree only (contract §6): each node's labels, and the view's hierarchy.
  std::vector<std::vector<std::pair<std::string, std::string>>> labels;
  std::optional<std::vector<std::string>> hierarchy;

  std::size_t size() const { return ids.size(); }
  double total_weight() const;
  // Every node's w_i / Σw, in list order: one pass (a per-node call would be O(N) each).
  std::vector<double> shares() const;
};

// node-0 .. node-(count-1). InputError when count is 0.
NodeList numbered_nodes(std::size_t count, const std::string& source);
// From a cluster spec (file order kept), validated through ClusterView: invalid views are
// refused with the contract's messages.
NodeList node_list(const ClusterSpec& spec);
// The contract's validated view of a list: what the hrw-* schemes place against.
ClusterView to_cluster_view(const NodeList& nodes, bool use_weights, HashMode hash);

// 4 bytes a slot: the Maglev table stays under 400 MB.
inline constexpr std::uint32_t kMaxMaglevSize = 100'000'000;

struct Options {
  std::uint32_t vnodes = 100;        // ring: virtual nodes per unit of weight
  std::uint32_t maglev_size = 65537; // Maglev table size M: prime, >= node count
  double load_factor = 1.25;         // bounded loads: cap = ceil(c x fair load), c > 1
};
// InputError for vnodes 0, a non-prime or too small Maglev size, a load factor <= 1 (or NaN).
void validate(const Options& options, std::size_t max_nodes);

// Per-node load of one view, as ratios load_i / fair_i with fair_i = keys x share_i
// (share_i = w_i / sum w, or 1/N unweighted).
struct LoadStats {
  double peak_to_mean = 0;  // max ratio
  double min_to_mean = 0;   // min ratio
  double load_cv = 0;       // population std dev of the ratios (= coefficient of variation
                            // of the load when unweighted)
  std::vector<double> ratio;  // per node, in list order
};

struct AlgorithmResult {
  std::string name;
  std::optional<double> moved_fraction;  // nullopt: the scheme cannot express the change
  std::string note;                      // why not, or a caveat ("ignores weights")
  LoadStats before;                      // the "from" view
  LoadStats after;                       // the "to" view
  double ns_per_key = 0;    // assigning every key on the "to" view, one thread, / keys
  double bytes_per_node = 0;  // lookup structure bytes (beyond the node list) / nodes
};

struct Report {
  std::size_t keys = 0;
  NodeList from;
  NodeList to;
  Options options;
  double ideal_fraction = 0;  // total variation distance of the shares, ½ Σ |sA − sB|
  std::vector<AlgorithmResult> algorithms;
};

// ½ Σ |share_A − share_B| over the union of ids (a node absent from a view has share 0).
double ideal_moved_fraction(const NodeList& from, const NodeList& to);

// Runs every scheme on `keys` from `from` to `to`. hrw-weighted is included only when one
// of the views is weighted.
Report run(const NodeList& from, const NodeList& to, const KeyBatch& keys,
           const Options& options);

// Keys for the experiment: "key-0", "key-1", ... (n of them).
KeyBatch sample_keys(std::size_t n);
// Every key of a file ("-": stdin) in the formats of hrw::KeySource: lines, or CSV for a
// name ending in .csv. InputError (file and line) when it cannot be read.
// `ignored_columns`: CSV header columns to skip (docs/errors.md, "CSV columns").
KeyBatch read_key_file(const std::string& path, const std::vector<std::string>& ignored_columns = {});

// Output formats of `hrw compare`.
std::string format_table(const Report& report);
std::string format_json(const Report& report);
std::string format_csv(const Report& report);
// Two panels: moved fraction per scheme against the ideal, and min/peak load ratio per scheme.
std::string format_svg(const Report& report);

}  // namespace hrw::compare
