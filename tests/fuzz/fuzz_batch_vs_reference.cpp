// Differential: the SIMD batch engine on every runnable target against the scalar
// reference, on a fuzzed view (ids, weights, labels, seed, hash mode) and fuzzed keys,
// with R, a distinct label and partial results. Any difference aborts.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstdlib>
#include <set>
#include <string>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"

namespace {

hrw::ClusterSpec fuzzed_view(FuzzedDataProvider& in) {
  hrw::ClusterSpec spec;
  spec.seed = in.ConsumeRandomLengthString(8);
  spec.hash = in.ConsumeBool() ? hrw::HashMode::fnv1a : hrw::HashMode::fnv1a_fmix;
  const std::size_t nodes = in.ConsumeIntegralInRange<std::size_t>(1, 40);
  const bool weighted = in.ConsumeBool();
  std::set<std::string> ids;
  for (std::size_t i = 0; i < nodes && in.remaining_bytes() > 0; ++i) {
    hrw::NodeSpec node;
    node.id = in.ConsumeRandomLengthString(12);
    if (node.id.empty() || !ids.insert(node.id).second) continue;
    if (weighted && in.ConsumeBool()) {
      static constexpr double kEnds[] = {hrw::kMinWeight, hrw::kMaxWeight, 1.0, 0.5, 3.0};
      node.weight = in.ConsumeBool() ? kEnds[in.ConsumeIntegralInRange<int>(0, 4)]
                                     : in.ConsumeFloatingPointInRange(hrw::kMinWeight, 1e6);
    }
    if (in.ConsumeBool()) node.labels.emplace_back("zone", std::string(1, static_cast<char>('a' + in.ConsumeIntegralInRange<int>(0, 4))));
    spec.nodes.push_back(std::move(node));
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  hrw::ClusterSpec spec = fuzzed_view(in);
  if (spec.nodes.empty()) return 0;
  const hrw::ClusterView view(std::move(spec));
  hrw::PlaceOptions options;
  options.replicas = in.ConsumeIntegralInRange<std::uint32_t>(1, static_cast<std::uint32_t>(view.size()));
  if (in.ConsumeBool()) options.distinct_label = "zone";
  options.allow_partial = in.ConsumeBool();
  options.threads = 1;
  hrw::KeyBatch keys;
  const std::size_t count = in.ConsumeIntegralInRange<std::size_t>(1, 64);
  for (std::size_t i = 0; i < count; ++i) keys.add(in.ConsumeRandomLengthString(40));

  hrw::Placement want, got;
  options.engine = hrw::Engine::reference;
  try {
    hrw::place(view, keys, options, want);
  } catch (const hrw::InputError&) {
    return 0;  // fewer domains than R without --partial: refused by both engines alike
  }
  options.engine = hrw::Engine::simd;
  for (const hrw::SimdTarget& target : hrw::runnable_targets()) {
    hrw::force_target(target.bits);
    hrw::place(view, keys, options, got);
    if (got.nodes != want.nodes || got.partial != want.partial) std::abort();
  }
  hrw::force_target(0);
  return 0;
}
