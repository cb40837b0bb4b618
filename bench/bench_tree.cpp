// Hierarchical views (contract §6) beside flat ones, one thread, every runnable target:
//   place/<TARGET>/fmix/<w>/R1/t1/tree-10x10x100/10000  (zone, rack: 10 x 10 x 100 nodes)
//   place/<TARGET>/fmix/<w>/R1/t1/prefix/10000          (the same 10,000 ids, flat)
// keys_per_iteration counts keys (the ratio of the two keys/s is the tree's speed-up,
// docs/hierarchy.md); items and pairs_per_iteration count pair-scores, as in bench_main.cpp. Each is checked against the scalar reference before timing.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <map>
#include <memory>
#include <string>

#include "bench.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"
#include "bench/workload.hpp"

namespace hrw::bench {
namespace {

constexpr std::uint32_t kNodes = 10'000;
constexpr std::size_t kTreeKeys = 64 * 1024;
constexpr std::size_t kCheckedKeys = 256;

// node-0000 .. node-9999 (the flat prefix ids), node i in zone z<i / 1000>, rack r<i / 100 % 10>.
const ClusterView& tree_view(bool weighted, bool hierarchical) {
  static std::map<std::pair<bool, bool>, std::unique_ptr<ClusterView>> cache;
  auto& slot = cache[{weighted, hierarchical}];
  if (!slot) {
    ClusterSpec spec;
    spec.source = "bench";
    const std::vector<std::string> ids = node_ids(kNodes, IdSet::prefix);
    for (std::uint32_t i = 0; i < kNodes; ++i) {
      NodeSpec node;
      node.id = ids[i];
      if (weighted) node.weight = weight_of(i);
      // snprintf, not "z" + std::to_string(...): g++ 12 warns falsely (-Wrestrict) on that.
      char zone[16], rack[16];
      std::snprintf(zone, sizeof zone, "z%u", i / 1000);
      std::snprintf(rack, sizeof rack, "r%u", i / 100 % 10);
      node.labels.emplace_back("zone", zone);
      node.labels.emplace_back("rack", rack);
      spec.nodes.push_back(std::move(node));
    }
    if (hierarchical) spec.hierarchy = std::vector<std::string>{"zone", "rack"};
    slot = std::make_unique<ClusterView>(std::move(spec));
  }
  return *slot;
}

void run(benchmark::State& st, std::int64_t target, bool weighted, bool hierarchical) {
  const ClusterView& v = tree_view(weighted, hierarchical);
  const KeyBatch& batch = keys(kTreeKeys);
  PlaceOptions opt;
  opt.threads = 1;
  const ScopedTarget on(target);
  KeyBatch sample;
  for (std::size_t i = 0; i < kCheckedKeys; ++i) sample.add(batch[i]);
  PlaceOptions ref = opt;
  ref.engine = Engine::reference;
  if (place(v, sample, opt).nodes != place(v, sample, ref).nodes) {
    st.SkipWithError("result differs from the scalar reference");
    return;
  }
  Placement out;
  place(v, batch, opt, out);
  for (auto _ : st) {
    place(v, batch, opt, out);
    benchmark::DoNotOptimize(out.nodes.data());
    benchmark::ClobberMemory();
  }
  // Pair-scores per key: N flat; the siblings along the path (10 + 10 + 100) in the tree.
  double pairs_per_key = kNodes;
  if (const Hierarchy* h = v.hierarchy())
    pairs_per_key = static_cast<double>(h->level(0).size() + h->level(0)[0].children.size() +
                                        h->level(1)[0].children.size());
  const double pairs = static_cast<double>(batch.size()) * pairs_per_key;
  st.SetItemsProcessed(st.iterations() * static_cast<std::int64_t>(pairs));
  st.counters["keys_per_iteration"] = static_cast<double>(batch.size());
  st.counters["pairs_per_iteration"] = pairs;
  st.SetLabel(active_target().name);
}

}  // namespace

void register_tree_benchmarks() {
  for (const SimdTarget& t : runnable_targets())
    for (bool weighted : {false, true})
      for (bool hierarchical : {true, false}) {
        const std::string name = "place/" + t.name + "/fmix/" +
                                 (weighted ? "weighted" : "unweighted") + "/R1/t1/" +
                                 (hierarchical ? "tree-10x10x100" : "prefix") + "/10000";
        const std::int64_t bits = t.bits;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& st) {
          run(st, bits, weighted, hierarchical);
        })->Unit(benchmark::kMillisecond);
      }
}

}  // namespace hrw::bench
