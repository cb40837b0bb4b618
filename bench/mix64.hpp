// SCALAR_MIX64: the cheapest scalar HRW design popular libraries use, as the baseline users
// have today. Node hashes are computed once (XXH3_64bits of the id); each key is hashed
// once with XXH3_64bits; each (key, node) pair costs one 64-bit xorshift-multiply mix
//   x = key_hash ^ node_hash; x ^= x >> 33; x *= 0xff51afd7ed558ccd; x ^= x >> 33;
// and the argmax (top R) keeps the best. Weighted: u = ((x >> 11) + 1) / 2^53 and the
// score ln(u) / w with libm's log (what weighted-rendezvous libraries do).
// It is not the contract's hash, so its owners differ from hrw::place: it is a speed
// baseline only.
#pragma once
#include <cstdint>
#include <string_view>
#include <vector>

#include "hrw/cluster_view.hpp"
#include "hrw/key_batch.hpp"

namespace hrw::bench {

struct Mix64View {
  std::vector<std::uint64_t> node_hash;  // XXH3_64bits(id), node-index order
  std::vector<double> weight;            // empty: unweighted
  std::vector<std::uint32_t> domain;     // empty: no distinct constraint
  std::uint32_t domains = 0;
};

Mix64View make_mix64_view(const ClusterView& view, bool weighted,
                          std::string_view distinct_label);

// Writes key i's R choices to out[i * replicas + j]. `out` holds keys.size() * replicas.
// mix64_place_scalar: built with -fno-tree-vectorize and
// __attribute__((optimize("no-tree-vectorize"))): the scalar loop.
// mix64_place_autovec: the same source with the project's normal flags (-O3).
void mix64_place_scalar(const Mix64View& v, const KeyBatch& keys, std::uint32_t replicas,
                        std::uint32_t* out);
void mix64_place_autovec(const Mix64View& v, const KeyBatch& keys, std::uint32_t replicas,
                         std::uint32_t* out);

}  // namespace hrw::bench
