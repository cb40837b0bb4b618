// hrw_bench: pair-scores per second of hrw::place (the scalar reference and every runnable
// Highway target, forced in turn), of the SCALAR_MIX64 baseline, and the multiply bound.
// Names: <family>/<ENGINE>/<hash>/<weighting>/R<r>[-zone]/t<threads>/<ids>/<N>
// (README.md). items = keys x nodes per iteration, so items_per_second = pair-scores/s.

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "bench.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/hash.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"
#include "mix64.hpp"
#include "kernel_plan.hpp"
#include "node_trie.hpp"
#include "bench/workload.hpp"

namespace hrw::bench {
namespace {

constexpr std::size_t kKeys = 64 * 1024;       // keys per iteration (SIMD, MIX64)
constexpr std::size_t kRefKeys = 4 * 1024;     // SCALAR_REF is ~100x slower: fewer keys
constexpr std::size_t kBigKeys = 10'000'000;   // the thread-scaling case
constexpr std::uint32_t kNodeCounts[] = {10, 100, 1000};
constexpr std::size_t kCheckedKeys = 512;      // compared with the reference before timing

enum class Kind { reference, simd, mix64, mix64_autovec };

struct Case {
  std::string family = "place";
  std::string engine;  // SCALAR_REF, a Highway target name, SCALAR_MIX64[_AUTOVEC]
  Kind kind = Kind::simd;
  std::int64_t target_bits = 0;
  HashMode hash = HashMode::fnv1a_fmix;
  bool weighted = false;
  bool fine = false;  // weighted-fine: every node its own weight (workload.hpp)
  std::uint32_t replicas = 1;
  bool distinct = false;  // distinct "zone" (z0..z3 round robin)
  unsigned threads = 1;
  IdSet ids = IdSet::prefix;
  // Contract §9: the prefix ids with every other node cut, so that ~2% of pairs fail their
  // cut ("cuts"), or so that the cuts move ~2.4% of the keys off their plain owner, as
  // balanced cuts do ("cuts-binding").
  bool cuts = false;
  bool binding = false;
  std::size_t keys = kKeys;

  std::string name() const {
    std::string hash_name = kind == Kind::mix64 || kind == Kind::mix64_autovec
                                ? "mix64"
                                : (hash == HashMode::fnv1a_fmix ? "fmix" : "fnv1a");
    return family + "/" + engine + "/" + hash_name + "/" +
           (weighted ? (fine ? "weighted-fine" : "weighted") : "unweighted") + "/R" + std::to_string(replicas) +
           (distinct ? "-zone" : "") + "/t" + std::to_string(threads) + "/" +
           (cuts ? (binding ? "cuts-binding" : "cuts") : to_string(ids));
  }
};

// FNV-1a steps (one 32-bit lane multiply each) per pair the trie program executes, plus
// the two multiplies of fmix32: what the kernel multiplies per (key, node) pair.
double lane_muls_per_pair(const ClusterView& view) {
  std::vector<std::string_view> ids;
  for (const Node& n : view.nodes()) ids.push_back(n.id);
  const kernels::TrieProgram program = kernels::build_trie_program(ids);
  double steps = 0;
  for (const kernels::Op& op : program.ops) steps += op.length;
  return steps / static_cast<double>(view.size()) +
         (view.hash() == HashMode::fnv1a_fmix ? 2.0 : 0.0);
}

// A sub-batch of the first `count` keys.
KeyBatch head(const KeyBatch& keys, std::size_t count) {
  KeyBatch out;
  for (std::size_t i = 0; i < count && i < keys.size(); ++i) out.add(keys[i]);
  return out;
}

// The view with cuts of the cuts/N cases: the same ids and weights, and on every other node
// (in id order) a cut of 4% of the r range, so about 2% of all pairs fail their cut. Binding
// (cuts-binding/N): a cut of 97% of the range, so that a cut node keeps the keys it owns
// only where their r is in the top 3% (at N = 100 the owner's r, the largest of 100, is below
// 0.97 x 2^32 for 0.97^100, ~4.8%, of its keys): ~2.4% of all keys move, as balanced cuts do
// (docs/balance.md).
const ClusterView& cut_view(const ClusterView& plain, bool binding) {
  static std::map<std::pair<const ClusterView*, bool>, std::unique_ptr<ClusterView>> cache;
  auto& slot = cache[{&plain, binding}];
  const std::uint32_t cut = binding ? 4166118277u : 171798692u;  // 0.97 or 0.04 x 2^32
  if (!slot) {
    ClusterSpec spec;
    spec.seed = plain.seed();
    spec.hash = plain.hash();
    for (std::uint32_t i = 0; i < plain.size(); ++i) {
      const Node& n = plain.node(i);
      spec.nodes.push_back({n.id, n.has_weight ? std::optional<double>(n.weight) : std::nullopt,
                            n.labels, i % 2 ? cut : 0u});
    }
    slot = std::make_unique<ClusterView>(std::move(spec));
  }
  return *slot;
}

void run_place(benchmark::State& st, const Case& c) {
  const auto n = static_cast<std::uint32_t>(st.range(0));
  const ClusterView& plain = view(n, c.ids, c.weighted, c.hash, c.fine);
  const ClusterView& v = c.cuts ? cut_view(plain, c.binding) : plain;
  const KeyBatch& batch = keys(c.keys);

  PlaceOptions opt;
  opt.replicas = c.replicas;
  opt.distinct_label = c.distinct ? "zone" : "";
  opt.threads = c.threads;
  opt.engine = c.kind == Kind::reference ? Engine::reference : Engine::simd;

  std::optional<ScopedTarget> on;  // restores detection when the case ends, however it ends
  if (c.kind == Kind::simd) {
    on.emplace(c.target_bits);
    const SimdTarget active = active_target();
    if (active.bits != c.target_bits) {
      st.SkipWithError(("force_target did not take: active target is " + active.name).c_str());
      return;
    }
    // Same bits as the reference, or the speed means nothing.
    const KeyBatch sample = head(batch, kCheckedKeys);
    PlaceOptions ref_opt = opt;
    ref_opt.engine = Engine::reference;
    ref_opt.threads = 1;
    const Placement want = place(v, sample, ref_opt);
    const Placement got = place(v, sample, opt);
    if (got.nodes != want.nodes) {
      st.SkipWithError("result differs from the scalar reference");
      return;
    }
  }

  Placement out;
  place(v, batch, opt, out);  // warm-up: allocations, TBB workers
  for (auto _ : st) {
    place(v, batch, opt, out);
    benchmark::DoNotOptimize(out.nodes.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(batch.size()) * n);
  st.counters["keys"] = static_cast<double>(batch.size());
  st.counters["keys_per_iteration"] = static_cast<double>(batch.size());
  st.counters["pairs_per_iteration"] = static_cast<double>(batch.size()) * n;
  if (c.kind == Kind::simd) {
    st.counters["lane_muls_per_pair"] = lane_muls_per_pair(v);
    st.SetLabel(active_target().name);
  }
}

// The kernel alone (kernels::run_batch on precomputed key states, one thread): place()
// minus this is the per-key scalar prefix hashing, the chunking and the output setup.
void run_kernel(benchmark::State& st, const Case& c) {
  const auto n = static_cast<std::uint32_t>(st.range(0));
  const ClusterView& v = view(n, c.ids, c.weighted, c.hash, c.fine);
  const KeyBatch& batch = keys(c.keys);
  const ScopedTarget on(c.target_bits);  // restores detection when the case ends
  if (active_target().bits != c.target_bits) {
    st.SkipWithError("force_target did not take");
    return;
  }
  const kernels::KernelPlan plan = kernels::compile_plan({&v}, PlaceOptions{});
  std::vector<std::uint32_t> states(batch.size());
  for (std::size_t i = 0; i < batch.size(); ++i)
    states[i] = fnv1a32_continue(v.seed_state(), batch[i]);
  std::vector<std::uint32_t> out(batch.size());
  // The same 4096-key chunks as place() uses.
  constexpr std::size_t kChunk = 4096;
  auto run = [&] {
    for (std::size_t lo = 0; lo < batch.size(); lo += kChunk) {
      const std::size_t hi = std::min(batch.size(), lo + kChunk);
      kernels::run_batch(plan, states.data() + lo, hi - lo, {out.data() + lo, nullptr, 1});
    }
  };
  run();
  for (auto _ : st) {
    run();
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(batch.size()) * n);
  st.counters["keys"] = static_cast<double>(batch.size());
  st.counters["pairs_per_iteration"] = static_cast<double>(batch.size()) * n;
  st.counters["lane_muls_per_pair"] = lane_muls_per_pair(v);
  st.SetLabel(active_target().name);
}

// hrw plan's placement step: the keys placed in a 100-node and a 101-node view (one node
// added) by PairPlacer, one walk of the 101-id union trie per key. Compare keys/s with
// place/.../101 (one view of the same 101 ids).
constexpr std::uint32_t kPlanFrom = 100, kPlanTo = 101;

void run_plan(benchmark::State& st, const Case& c) {
  const ClusterView& a = view(kPlanFrom, c.ids, c.weighted, c.hash);
  const ClusterView& b = view(kPlanTo, c.ids, c.weighted, c.hash);
  const KeyBatch& batch = keys(c.keys);
  const ScopedTarget on(c.target_bits);  // restores detection when the case ends
  if (active_target().bits != c.target_bits) {
    st.SkipWithError("force_target did not take");
    return;
  }
  PlaceOptions opt;
  opt.replicas = c.replicas;
  opt.threads = c.threads;
  const PairPlacer pair(a, b, opt);
  if (!pair.fused()) {
    st.SkipWithError("the views do not fuse");
    return;
  }
  // Same bits as two reference placements, or the speed means nothing.
  const KeyBatch sample = head(batch, kCheckedKeys);
  PlaceOptions ref_opt = opt;
  ref_opt.engine = Engine::reference;
  Placement pa, pb;
  pair.place(sample, pa, pb);
  if (pa.nodes != place(a, sample, ref_opt).nodes || pb.nodes != place(b, sample, ref_opt).nodes) {
    st.SkipWithError("result differs from the scalar reference");
    return;
  }
  pair.place(batch, pa, pb);  // warm-up
  for (auto _ : st) {
    pair.place(batch, pa, pb);
    benchmark::DoNotOptimize(pa.nodes.data());
    benchmark::DoNotOptimize(pb.nodes.data());
    benchmark::ClobberMemory();
  }
  const double keys_per_iteration = static_cast<double>(batch.size());
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(batch.size()) * kPlanTo);
  st.counters["keys_per_iteration"] = keys_per_iteration;
  st.counters["pairs_per_iteration"] = keys_per_iteration * kPlanTo;  // the union's 101 ids
  st.SetLabel(active_target().name);
}

void run_mix64(benchmark::State& st, const Case& c) {
  const auto n = static_cast<std::uint32_t>(st.range(0));
  const ClusterView& v = view(n, c.ids, c.weighted, HashMode::fnv1a_fmix);
  const KeyBatch& batch = keys(c.keys);
  const Mix64View mv = make_mix64_view(v, c.weighted, c.distinct ? "zone" : "");
  const auto fn = c.kind == Kind::mix64 ? mix64_place_scalar : mix64_place_autovec;
  std::vector<std::uint32_t> out(batch.size() * c.replicas);
  fn(mv, batch, c.replicas, out.data());
  for (auto _ : st) {
    fn(mv, batch, c.replicas, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(batch.size()) * n);
  st.counters["keys"] = static_cast<double>(batch.size());
  st.counters["pairs_per_iteration"] = static_cast<double>(batch.size()) * n;
}

void add(const Case& c, const std::vector<std::uint32_t>& node_counts = {std::begin(kNodeCounts), std::end(kNodeCounts)}) {
  if (c.family == "plan") {  // named for its two views, no node-count argument
    benchmark::RegisterBenchmark((c.name() + "/" + std::to_string(kPlanFrom) + "to" +
                                  std::to_string(kPlanTo)).c_str(),
                                 [c](benchmark::State& st) { run_plan(st, c); });
    return;
  }
  auto* b = benchmark::RegisterBenchmark(c.name().c_str(), [c](benchmark::State& st) {
    if (c.kind == Kind::mix64 || c.kind == Kind::mix64_autovec)
      run_mix64(st, c);
    else if (c.family == "kernel")
      run_kernel(st, c);
    else
      run_place(st, c);
  });
  for (std::uint32_t n : node_counts) b->Arg(n);
  // No UseRealTime()/Iterations(): they append "/real_time" or "/iterations:" to the name
  // and the node count must stay its last component. items_per_second is therefore per
  // CPU second of the calling thread; the JSON's real_time (wall clock) is what
  // bench/run-ratios.sh uses, with pairs_per_iteration, for every figure it prints.
}

struct Variant {
  bool weighted;
  std::uint32_t replicas;
  bool distinct;
};
constexpr Variant kVariants[] = {
    {false, 1, false}, {true, 1, false}, {false, 3, false}, {false, 3, true}, {true, 3, true}};

void register_place_benchmarks() {
  std::vector<Case> engines;
  {
    Case ref;
    ref.engine = "SCALAR_REF";
    ref.kind = Kind::reference;
    ref.keys = kRefKeys;
    engines.push_back(ref);
  }
  for (const SimdTarget& t : runnable_targets()) {
    Case s;
    s.engine = t.name;
    s.kind = Kind::simd;
    s.target_bits = t.bits;
    engines.push_back(s);
  }
  {
    Case m;
    m.engine = "SCALAR_MIX64";
    m.kind = Kind::mix64;
    engines.push_back(m);
    m.engine = "SCALAR_MIX64_AUTOVEC";
    m.kind = Kind::mix64_autovec;
    engines.push_back(m);
  }

  for (const Case& e : engines) {
    const bool multi_thread = e.kind == Kind::simd;
    for (const Variant& var : kVariants)
      for (unsigned t : {1u, 2u}) {
        if (t == 2 && !multi_thread) continue;
        for (IdSet ids : {IdSet::prefix, IdSet::noprefix}) {
          Case c = e;
          c.weighted = var.weighted;
          c.replicas = var.replicas;
          c.distinct = var.distinct;
          c.threads = t;
          c.ids = ids;
          add(c);
        }
      }
    if (e.kind == Kind::reference || e.kind == Kind::simd) {  // raw fnv1a: the base case
      Case c = e;
      c.hash = HashMode::fnv1a;
      add(c);
    }
  }

  // The kernel alone, R = 1, one thread.
  for (const Case& e : engines) {
    if (e.kind != Kind::simd) continue;
    for (bool weighted : {false, true})
      for (IdSet ids : {IdSet::prefix, IdSet::noprefix}) {
        Case c = e;
        c.family = "kernel";
        c.weighted = weighted;
        c.ids = ids;
        add(c);
      }
  }

  // A plan's placement step (100 -> 101 nodes, fused) next to one view of the 101 ids.
  for (const Case& e : engines) {
    if (e.kind != Kind::simd) continue;
    for (bool weighted : {false, true}) {
      Case c = e;
      c.weighted = weighted;
      add(c, {kPlanTo});
      c.family = "plan";
      add(c);
    }
  }

  // Contract §9: R = 1 with cuts beside the same ids without (place/<T>/fmix/<w>/R1/t1/prefix/100),
  // and unweighted R = 3 (the top-R kernel) beside place/<T>/fmix/unweighted/R3/t1/prefix/100.
  for (const Case& e : engines) {
    if (e.kind != Kind::simd) continue;
    for (bool weighted : {false, true})
      for (bool binding : {false, true}) {
        Case c = e;
        c.weighted = weighted;
        c.cuts = true;
        c.binding = binding;
        add(c, {100});
      }
    Case c = e;
    c.replicas = 3;
    c.cuts = true;
    add(c, {100});
  }

  // Weighted R = 1 with n distinct weights (the 32-bit gate; the weighted cases above have 5,
  // which the kernels rank by class) beside place/<T>/fmix/weighted/R1/t1/prefix/<N>.
  for (const Case& e : engines) {
    if (e.kind != Kind::simd) continue;
    Case c = e;
    c.weighted = true;
    c.fine = true;
    add(c);
  }

  // Thread scaling on 10^7 keys: every SIMD target, 1 and 2 threads (N = 10, 100, 1000).
  for (const Case& e : engines) {
    if (e.kind != Kind::simd) continue;
    for (unsigned t : {1u, 2u}) {
      Case c = e;
      c.family = "place10M";
      c.keys = kBigKeys;
      c.threads = t;
      add(c);
    }
  }
}

}  // namespace
}  // namespace hrw::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  std::string targets;
  for (const hrw::SimdTarget& t : hrw::runnable_targets())
    targets += (targets.empty() ? "" : ",") + t.name;
  benchmark::AddCustomContext("hrw_runnable_targets", targets);
  benchmark::AddCustomContext("hrw_keys_per_iteration",
                              std::to_string(hrw::bench::kKeys) + " (SCALAR_REF " +
                                  std::to_string(hrw::bench::kRefKeys) + ", place10M " +
                                  std::to_string(hrw::bench::kBigKeys) + ")");
  hrw::bench::register_mulbound_benchmarks();
  hrw::bench::register_place_benchmarks();
  hrw::bench::register_read_benchmarks();
  hrw::bench::register_tree_benchmarks();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
