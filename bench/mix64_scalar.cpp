// SCALAR_MIX64, pinned scalar: GCC 12 -O3 would otherwise be free to vectorise the loop.
// (CMakeLists.txt also builds this file with -fno-tree-vectorize.)
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "mix64.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#define HRW_MIX64_NS scalar_loop
#define HRW_MIX64_NAME mix64_place_scalar
#define HRW_MIX64_ATTR __attribute__((optimize("no-tree-vectorize")))
#include "mix64_impl.hpp"

namespace hrw::bench {

Mix64View make_mix64_view(const ClusterView& view, bool weighted,
                          std::string_view distinct_label) {
  Mix64View v;
  for (const Node& node : view.nodes()) {
    v.node_hash.push_back(XXH3_64bits(node.id.data(), node.id.size()));
    if (weighted) v.weight.push_back(node.weight);
  }
  if (!distinct_label.empty()) {
    v.domain = view.domains(distinct_label);
    v.domains = view.domain_count(distinct_label);
  }
  return v;
}

}  // namespace hrw::bench
