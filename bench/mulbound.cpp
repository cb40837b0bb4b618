// The multiply bound and the pair op-mix bound of this machine (src/jobs/bench/op_bounds.hpp,
// the one copy `hrw bench` runs too), registered as benchmarks so the kernels can be stated
// as a fraction of them in the same run.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench.hpp"
#include "bench/op_bounds.hpp"

namespace hrw::bench {
namespace {

// The probes of this architecture, runnable here or not (those the CPU lacks are
// registered to say so, as SkipWithError).
std::vector<ProbeIsa> architecture_isas() {
#if defined(__x86_64__) || defined(__i386__)
  return {ProbeIsa::avx512, ProbeIsa::avx2};
#elif defined(__aarch64__)
  return {ProbeIsa::neon};
#else
  return {};
#endif
}

const char* mul_instruction(ProbeIsa isa) { return isa == ProbeIsa::neon ? "mul_u32" : "vpmulld"; }

void register_probe(ProbeIsa isa, int chains, bool pair) {
  const std::string name = pair ? std::string("pairbound/") + probe_isa_name(isa) + "/fnv1-fmix-argmax/chains" +
                                      std::to_string(chains)
                                : std::string("mulbound/") + probe_isa_name(isa) + "/" + mul_instruction(isa) +
                                      "/chains" + std::to_string(chains);
  benchmark::RegisterBenchmark(name.c_str(), [isa, chains, pair](benchmark::State& st) {
    const std::vector<ProbeIsa> here = runnable_probe_isas();
    if (std::find(here.begin(), here.end(), isa) == here.end()) {
      st.SkipWithError((std::string("CPU lacks ") + probe_isa_name(isa)).c_str());
      return;
    }
    for (auto _ : st)
      benchmark::DoNotOptimize(pair ? run_pair_probe(isa, chains, 1, 7) : run_mul_probe(isa, chains, 1, 7));
    const auto items = static_cast<std::int64_t>(probe_items_per_call(isa, chains));
    st.SetItemsProcessed(st.iterations() * items);
    st.counters["items_per_iteration"] = static_cast<double>(items);
    if (pair) st.counters["lane_muls_per_pair"] = 3;
  });
}

}  // namespace

void register_mulbound_benchmarks() {
  for (ProbeIsa isa : architecture_isas())
    for (int chains : kProbeChains) {
      register_probe(isa, chains, true);
      register_probe(isa, chains, false);
    }
}

}  // namespace hrw::bench
