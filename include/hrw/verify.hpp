// Self-check of the SIMD engine: every runnable target against the scalar reference on
// random clusters and keys (what `hrw verify` runs, and what the tests call).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hrw {

struct VerifyOptions {
  // (key, node) pairs to check per target, summed over the placements compared (a
  // placement of K keys on N nodes counts K * N). At least one cluster is always checked.
  std::uint64_t pairs = 20'000'000;
  std::uint64_t seed = 1;  // everything (clusters, keys, options) derives from it
  unsigned threads = 0;    // PlaceOptions::threads for both engines
};

struct VerifyTargetResult {
  std::int64_t bits = 0;
  std::string name;
  std::uint64_t pairs = 0;       // (key, node) pairs compared
  std::uint64_t placements = 0;  // place() calls compared
  std::uint64_t mismatches = 0;  // keys whose nodes, scores or partial flag differ
  std::string first_mismatch;    // empty when there is none
};

// For every runnable target (forced in turn with ScopedTarget, so whatever was forced
// before is restored; only the forced one when a target is forced on entry), compares
// hrw::place with Engine::simd against Engine::reference: owners, replica sets for R up to
// 5 with and without a distinct label (partial allowed), and scores bit for bit. Clusters
// of 1 to 2000 nodes, shared-prefix, prefix-chain and random-byte ids, keys of 0 to 200
// arbitrary bytes, weighted and not, both hash modes, random seeds. Each cluster is also
// paired with a changed copy (nodes added, removed, reweighted, relabelled, several at
// once) and the two are placed together by PairPlacer (the fused plan kernel), each view
// compared with its own reference placement. One cluster in four is hierarchical (contract
// §6: 1-4 levels, uneven fan-out, '/' and '=' in values), paired with a changed copy that
// keeps, cuts or drops the hierarchy. Deterministic from options.seed.
std::vector<VerifyTargetResult> verify_targets(const VerifyOptions& options = {});

}  // namespace hrw
