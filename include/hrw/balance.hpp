// Contract §9: balanced cuts for a key set (what `hrw balance` computes), streamed in passes
// that raise cuts from 0, so memory stays flat in the number of keys.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_source.hpp"

namespace hrw {

enum class LoadBy { keys, bytes, requests };

struct BalanceOptions {
  double max_overload = 0;  // the tolerance ε of §9: finite, >= 0
  LoadBy by = LoadBy::keys;
  unsigned threads = 0;     // 0: all cores
  std::string spill_dir;    // where the keys are kept between passes; empty: the temp folder
};

struct BalanceResult {
  std::uint64_t keys = 0;
  std::uint64_t total_load = 0;             // L = Σ ℓ, exact
  std::vector<std::uint32_t> cuts;          // per node index: §9's balanced cuts
  std::vector<std::uint64_t> capacity;      // per node: floor((1 + ε) × w_i / Σw × L)
  std::vector<std::uint64_t> load_before;   // per node, at the plain-rendezvous owner
  std::vector<std::uint64_t> load_after;    // per node, placed with the cuts
  std::uint64_t displaced = 0;  // keys whose owner with the cuts is not the plain owner
  std::uint64_t overflow = 0;   // keys that clear no node's cut (placed at rank 1)
  std::uint32_t passes = 0;     // streams over the keys, the first (reading the input) included
};

// The balanced cuts of `view` (flat; its own cuts are ignored: the passes start from 0)
// for the keys of `keys`, R = 1, equal to §9's deferred acceptance for any key order
// (reference::balanced_cuts). The keys are read once and spilled to an unlinked temporary
// file (key + 12 bytes each) for the later passes. Each pass places every key with the
// current cuts and keeps, per node, a histogram of r (4096 buckets) weighted by load; a
// second stream collects the exact keys of the one bucket where a node's capacity is
// crossed, and the node's cut rises to the r of the last key the rule lets it hold. Stops
// when no cut rises. Memory: 4096 × 16 bytes per node plus the crossing buckets' keys.
// InputError: a hierarchical view, ε negative or not finite, a load column the input lacks,
// a total load beyond 2^64 − 1.
BalanceResult balance_cuts(const ClusterView& view, KeySource& keys, const BalanceOptions& options);
// The same for keys in memory with their loads (options.by is not used).
BalanceResult balance_cuts(const ClusterView& view, const KeyBatch& keys,
                           const std::vector<std::uint64_t>& loads, const BalanceOptions& options);

// `view` as a cluster spec with `cuts` (everything else as in the view): what is written.
ClusterSpec spec_with_cuts(const ClusterView& view, const std::vector<std::uint32_t>& cuts);

}  // namespace hrw
