// Not a normal header: no include guard on purpose, it is meant to be included twice.
// The SCALAR_MIX64 loop, included by mix64_scalar.cpp and mix64_autovec.cpp with
// HRW_MIX64_NAME (function name) and HRW_MIX64_ATTR (function attributes) defined.
// Deliberately plain: this is what an HRW library user runs today.

namespace hrw::bench {
namespace HRW_MIX64_NS {

HRW_MIX64_ATTR static inline std::uint64_t mix(std::uint64_t key_hash, std::uint64_t node_hash) {
  std::uint64_t x = key_hash ^ node_hash;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  return x;
}

HRW_MIX64_ATTR static inline double weighted_score(std::uint64_t x, double w) {
  const double u = static_cast<double>((x >> 11) + 1) * 0x1p-53;  // (0, 1]
  return std::log(u) / w;
}

// Top-R insertion: scores[0..R) best first. Strictly better only, so equal scores keep
// the lower node index (the id order).
template <typename S>
HRW_MIX64_ATTR static inline void offer(S s, std::uint32_t node, S* best, std::uint32_t* idx,
                                        std::uint32_t r) {
  if (!(s > best[r - 1])) return;
  std::uint32_t j = r - 1;
  while (j > 0 && s > best[j - 1]) {
    best[j] = best[j - 1];
    idx[j] = idx[j - 1];
    --j;
  }
  best[j] = s;
  idx[j] = node;
}

template <typename S, bool Weighted>
HRW_MIX64_ATTR static void place_impl(const Mix64View& v, const KeyBatch& keys,
                                      std::uint32_t r, std::uint32_t* out) {
  const std::size_t n = v.node_hash.size();
  const std::uint64_t* nh = v.node_hash.data();
  const double* w = v.weight.data();
  const S lowest = std::numeric_limits<S>::lowest();
  S best[64];
  std::uint32_t idx[64];
  std::vector<S> dom_best(v.domains);
  std::vector<std::uint32_t> dom_idx(v.domains);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const std::string_view key = keys[k];
    const std::uint64_t kh = XXH3_64bits(key.data(), key.size());
    std::uint32_t* o = out + k * r;
    if (r == 1 && v.domain.empty()) {  // the common case: owner only
      S b = lowest;
      std::uint32_t bi = 0;
      for (std::size_t i = 0; i < n; ++i) {
        S s;
        if constexpr (Weighted) s = weighted_score(mix(kh, nh[i]), w[i]);
        else s = mix(kh, nh[i]);
        if (s > b) {
          b = s;
          bi = static_cast<std::uint32_t>(i);
        }
      }
      o[0] = bi;
      continue;
    }
    for (std::uint32_t j = 0; j < r; ++j) {
      best[j] = lowest;
      idx[j] = kNoNode;
    }
    if (v.domain.empty()) {
      for (std::size_t i = 0; i < n; ++i) {
        S s;
        if constexpr (Weighted) s = weighted_score(mix(kh, nh[i]), w[i]);
        else s = mix(kh, nh[i]);
        offer(s, static_cast<std::uint32_t>(i), best, idx, r);
      }
    } else {
      // Distinct domains: each domain's best node represents it; take the best R of those
      // (= walking the ranking and skipping taken domains).
      std::fill(dom_best.begin(), dom_best.end(), lowest);
      for (std::size_t i = 0; i < n; ++i) {
        S s;
        if constexpr (Weighted) s = weighted_score(mix(kh, nh[i]), w[i]);
        else s = mix(kh, nh[i]);
        const std::uint32_t d = v.domain[i];
        if (s > dom_best[d]) {
          dom_best[d] = s;
          dom_idx[d] = static_cast<std::uint32_t>(i);
        }
      }
      for (std::uint32_t d = 0; d < v.domains; ++d) offer(dom_best[d], dom_idx[d], best, idx, r);
    }
    for (std::uint32_t j = 0; j < r; ++j) o[j] = idx[j];
  }
}

}  // namespace HRW_MIX64_NS

HRW_MIX64_ATTR void HRW_MIX64_NAME(const Mix64View& v, const KeyBatch& keys,
                                   std::uint32_t replicas, std::uint32_t* out) {
  if (replicas < 1 || replicas > 64) throw std::invalid_argument("mix64: replicas out of range");
  if (v.weight.empty())
    HRW_MIX64_NS::place_impl<std::uint64_t, false>(v, keys, replicas, out);
  else
    HRW_MIX64_NS::place_impl<double, true>(v, keys, replicas, out);
}

}  // namespace hrw::bench
