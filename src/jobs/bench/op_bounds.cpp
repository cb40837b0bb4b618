#include "bench/op_bounds.hpp"

#include <stdexcept>
#include <string>

#include <hwy/detect_targets.h>  // the target bits, no SIMD code

#include "op_probe.hpp"
#include "target_switch.hpp"

namespace hrw::bench {

namespace {

static_assert(kProbeInner == kernels::kOpProbeInner);

// The Highway target each probe ISA runs as (kernels/op_probe.cc, one source for all).
std::int64_t probe_target(ProbeIsa isa) {
  switch (isa) {
    case ProbeIsa::avx512: return HWY_AVX3;
    case ProbeIsa::avx2: return HWY_AVX2;
    case ProbeIsa::neon: return HWY_NEON;
  }
  return 0;
}

bool cpu_runs(ProbeIsa isa) {
  const std::int64_t target = probe_target(isa);
  return (kernels::detected_target_mask() & target) != 0 && kernels::op_probe_compiled(target);
}

std::uint32_t run_probe(ProbeIsa isa, kernels::OpProbe probe, int chains, std::int64_t calls, std::uint32_t seed) {
  if (!cpu_runs(isa))
    throw std::invalid_argument(std::string("op-bound probe: this CPU or build has no ") + probe_isa_name(isa));
  bool known = false;
  for (const int c : kProbeChains) known = known || c == chains;
  if (!known) throw std::invalid_argument("op-bound probe: no probe for " + std::to_string(chains) + " chains");
  return kernels::run_op_probe(probe_target(isa), probe, chains, calls, seed);
}

}  // namespace

const char* probe_isa_name(ProbeIsa isa) {
  switch (isa) {
    case ProbeIsa::avx512: return "AVX512";
    case ProbeIsa::avx2: return "AVX2";
    case ProbeIsa::neon: return "NEON";
  }
  return "?";
}

unsigned probe_lanes(ProbeIsa isa) {
  switch (isa) {
    case ProbeIsa::avx512: return 16;
    case ProbeIsa::avx2: return 8;
    case ProbeIsa::neon: return 4;
  }
  return 0;
}

std::vector<ProbeIsa> runnable_probe_isas() {
  std::vector<ProbeIsa> out;
  for (ProbeIsa isa : {ProbeIsa::avx512, ProbeIsa::avx2, ProbeIsa::neon})
    if (cpu_runs(isa)) out.push_back(isa);
  return out;
}

std::uint32_t run_mul_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed) {
  return run_probe(isa, kernels::OpProbe::mul, chains, calls, seed);
}

std::uint32_t run_pair_probe(ProbeIsa isa, int chains, std::int64_t calls, std::uint32_t seed) {
  return run_probe(isa, kernels::OpProbe::pair, chains, calls, seed);
}

}  // namespace hrw::bench
