// The batch API: place a KeyBatch against a ClusterView. This is what the CLI and the
// benchmarks call; the SIMD engine behind it gives the scalar reference's bits exactly.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
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
  unsigned threads = 0;        // 0: all cores; 1: the calling thread only (see worker_threads)
  Engine engine = Engine::simd;
};

// The threads a request for `threads` gets (0 stays 0: all cores): at most what oneTBB allows
// the process now (its max_allowed_parallelism, the core count unless the host raised it), so
// that the library never makes oneTBB print its "number of workers is limited" warning.
// Every parallel entry point of the library goes through it.
unsigned worker_threads(unsigned threads);

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

class ValidRequest;

// Validates a placement request against its view, once, before any key is placed: the
// replica count (1 to the node count) and, for a distinct label without partial results,
// the number of failure domains. InputError with Setting::replica_count otherwise.
// Contract §8: a `distinct` label that no node of the view carries is refused here too
// (Setting::distinct_label, listing the labels the view has).
ValidRequest validate_request(const ClusterView& view, const PlaceOptions& options);

// A request that validate_request accepted for its view, and the only way to make one:
// placers and jobs given one place by it without checking it again (docs/api.md).
class ValidRequest {
 public:
  const ClusterView& view() const { return *view_; }
  const PlaceOptions& options() const { return options_; }
  // Threads say how to run, not what to place: changing them keeps the request valid.
  ValidRequest with_threads(unsigned threads) const {
    ValidRequest r = *this;
    r.options_.threads = threads;
    return r;
  }

 private:
  friend ValidRequest validate_request(const ClusterView& view, const PlaceOptions& options);
  ValidRequest(const ClusterView& view, const PlaceOptions& options) : view_(&view), options_(options) {}
  const ClusterView* view_;
  PlaceOptions options_;
};

// Contract §8: when some but not all nodes carry the distinct label, the one-line notice a
// front end shows (the library never prints): how many nodes lack it and the first of
// them. nullopt when there is no label, or every node carries it.
std::optional<std::string> distinct_warning(const ClusterView& view, const PlaceOptions& options);

// Which settings of a request the caller gave, as opposed to defaults (contract §8).
struct GivenSettings {
  bool replicas = false, distinct = false, partial = false;
  // A plan that leaves one replica of keys that had more is asked for (docs/plan.md,
  // "Losing replicas").
  bool single_copy = false;
};
// Contract §8: the request that places keys in `view`. A view with a rule places by it: a
// given setting that agrees is accepted, one that contradicts it is an InputError naming
// the setting, the view's source, the rule's value and the given one. A view without a
// rule: `asked` as it is.
PlaceOptions options_for(const ClusterView& view, const PlaceOptions& asked, GivenSettings given);
// The requests of a plan's two views (contract §8): each view by its own rule (a view
// without one by `asked`), each validated against its view, once. When they differ, the
// plan migrates the rule itself.
struct PlanRequests {
  ValidRequest from, to;
  bool same_rule() const {
    const PlaceOptions &a = from.options(), &b = to.options();
    return a.replicas == b.replicas && a.distinct_label == b.distinct_label && a.allow_partial == b.allow_partial;
  }
  PlanRequests with_threads(unsigned threads) const { return {from.with_threads(threads), to.with_threads(threads)}; }
};
// options_for each view, each validated against its view: what run_plan and plan_part
// then place by without checking again. InputError when the views differ under one
// version (docs/plan.md, "Versions"), and when B keeps a single replica of keys that A
// keeps more of, unless given.single_copy (docs/plan.md, "Losing replicas").
PlanRequests options_for_plan(const ClusterView& a, const ClusterView& b, const PlaceOptions& asked,
                              GivenSettings given);
// Docs/plan.md, "Losing replicas": a warning when B keeps fewer replicas of each key than A
// (2 or more: a single copy is refused by options_for_plan unless asked for); nullopt else.
std::optional<std::string> replica_loss_warning(const ClusterView& a, const ClusterView& b, const PlanRequests& r);
// The rule a request places by (for summaries).
PlacementRule rule_of(const PlaceOptions& options);

// A view compiled for the kernels (node-id trie, weights, domains) once, for placing
// batch after batch with the same options: the streaming commands place thousands of
// chunks. The constructor validates the request (R, label, partial) unless given a
// ValidRequest; place() is const and
// may run on several threads at once.
class BatchPlacer {
 public:
  BatchPlacer(const ClusterView& view, const PlaceOptions& options);
  explicit BatchPlacer(const ValidRequest& request);  // places by it, without checking again
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
  // Each view by its own validated request, without checking again; fused only when both
  // requests place alike.
  PairPlacer(const ValidRequest& a, const ValidRequest& b);
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
