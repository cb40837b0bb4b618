// The batch API: place a KeyBatch against a ClusterView. This is what the CLI and the
// benchmarks call; the SIMD engine behind it gives the scalar reference's bits exactly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"

namespace hrw {

enum class Engine {
  simd,       // Highway kernels, best target of this CPU (or the forced one), oneTBB threads
  reference,  // the scalar reference, key by key: the ground truth, and SCALAR_REF in benches
};

struct PlaceOptions {
  std::uint32_t replicas = 1;
  std::string distinct_label;  // empty: no failure-domain constraint
  bool allow_partial = false;  // with distinct_label: fewer than R domains marks keys partial
  bool with_scores = false;    // also fill Placement::scores
  unsigned threads = 0;        // 0: all cores; 1: the calling thread only
  Engine engine = Engine::simd;
};

struct Placement {
  std::uint32_t replicas = 1;
  // Node indices (into ClusterView::nodes()), key-major: key i rank j at [i * replicas + j].
  // kNoNode fills the missing ranks of a partial result.
  std::vector<std::uint32_t> nodes;
  // Same layout; r as a double (unweighted) or u^(1/w) (weighted). Empty unless asked for.
  std::vector<double> scores;
  bool partial = false;  // true when the view has fewer domains than replicas (allowed)
  // Contract §9: keys placed on at least one node whose cut they do not clear (0 without cuts).
  std::uint64_t overflow = 0;

  std::size_t size() const { return replicas ? nodes.size() / replicas : 0; }
  std::uint32_t owner(std::size_t key) const { return nodes[key * replicas]; }
  std::uint32_t node(std::size_t key, std::uint32_t rank) const {
    return nodes[key * replicas + rank];
  }
};

// Validates a placement request against its view, once, before any key is placed: the
// replica count (1 to the node count) and, for a distinct label without partial results,
// the number of failure domains. InputError with Setting::replica_count otherwise.
void validate_request(const ClusterView& view, const PlaceOptions& options);

// A view compiled for the kernels (node-id trie, weights, domains) once, for placing
// batch after batch with the same options: the streaming commands place thousands of
// chunks. The constructor validates the request (R, label, partial); place() is const and
// may run on several threads at once.
class BatchPlacer {
 public:
  BatchPlacer(const ClusterView& view, const PlaceOptions& options);
  ~BatchPlacer();
  BatchPlacer(BatchPlacer&&) noexcept;
  BatchPlacer& operator=(BatchPlacer&&) noexcept;

  // Fills `out` (its memory is reused). Results do not depend on the engine, the SIMD
  // target, the thread count or the chunking.
  void place(const KeyBatch& keys, Placement& out) const;
  // The same for keys in memory the caller owns (read in place, never copied).
  void place(const KeyView& keys, Placement& out) const;

 private:
  struct Compiled;
  std::unique_ptr<const Compiled> compiled_;
};

// The two views of a plan placed together, with the results of two BatchPlacers. When
// the views share seed, hash mode and rank rule (both weighted or both not), each key
// walks the trie of the union of their ids once: one FNV-1a per union node, and a
// selection per view only for the nodes the views do not share with the same weight.
// Otherwise (and with Engine::reference, or R beyond the kernels' registers, or cuts (§9) with
// R > 1) it places
// the keys twice; also for hierarchical views (contract §6), which are placed level by
// level. Same contract as BatchPlacer: place() is const and thread-safe.
class PairPlacer {
 public:
  PairPlacer(const ClusterView& a, const ClusterView& b, const PlaceOptions& options);
  ~PairPlacer();
  PairPlacer(PairPlacer&&) noexcept;
  PairPlacer& operator=(PairPlacer&&) noexcept;

  bool fused() const { return fused_ != nullptr; }
  void place(const KeyBatch& keys, Placement& a, Placement& b) const;
  // The same for keys in memory the caller owns (read in place, never copied).
  void place(const KeyView& keys, Placement& a, Placement& b) const;

 private:
  struct Fused;
  BatchPlacer a_, b_;  // validation, and the fallback
  PlaceOptions options_;
  std::unique_ptr<const Fused> fused_;
};

// One batch: BatchPlacer(view, options).place(keys, out).
void place(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& options,
           Placement& out);
Placement place(const ClusterView& view, const KeyBatch& keys, const PlaceOptions& options);

}  // namespace hrw
