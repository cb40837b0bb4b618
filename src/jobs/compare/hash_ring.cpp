#include "compare/hash_ring.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "compare/key_hash.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {

namespace {
// 1e7 tokens = 120 MB of ring: beyond that the comparison is not worth the memory.
constexpr double kMaxTokens = 1e7;
}  // namespace

void HashRing::build(const NodeList& nodes, std::uint32_t vnodes, bool use_weights) {
  std::vector<std::uint64_t> counts(nodes.size(), vnodes);
  double total = 0;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    // Per unit of weight, not per share: a node whose weight did not change keeps its
    // tokens when another node's weight changes, so only the changed node's arcs move.
    const double wanted = use_weights ? vnodes * nodes.weights[n] : vnodes;
    total += wanted;
    if (total > kMaxTokens)
      throw InputError(fmt::format(
          "{}: the ring would need more than {} tokens ({} vnodes per unit of weight); "
          "lower the virtual node count or scale the weights down",
          nodes.source, kMaxTokens, vnodes));
    counts[n] = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::llround(wanted)));
  }
  std::vector<Token> tokens;
  std::string name;
  for (std::uint32_t n = 0; n < nodes.size(); ++n) {
    for (std::uint64_t v = 0; v < counts[n]; ++v) {
      name = nodes.ids[n];
      name += '#';
      name += std::to_string(v);
      tokens.push_back({key_hash(name), n});
    }
  }
  build_from_tokens(std::move(tokens));
}

void HashRing::build_from_tokens(std::vector<Token> tokens) {
  std::sort(tokens.begin(), tokens.end(), [](const Token& a, const Token& b) {
    return a.position != b.position ? a.position < b.position : a.node < b.node;
  });
  tokens_ = std::move(tokens);
}

std::size_t HashRing::successor(std::uint64_t hash) const {
  auto it = std::lower_bound(tokens_.begin(), tokens_.end(), hash,
                             [](const Token& t, std::uint64_t h) { return t.position < h; });
  return it == tokens_.end() ? 0 : static_cast<std::size_t>(it - tokens_.begin());
}

}  // namespace hrw::compare
