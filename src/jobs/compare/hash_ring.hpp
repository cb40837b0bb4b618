// A consistent-hash ring (Karger et al. 1997): every server owns V points ("tokens") on a
// 64-bit circle; a key belongs to the first token clockwise from its hash (position >= the
// hash), wrapping around past the largest position to the smallest.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hrw/compare.hpp"

namespace hrw::compare {

class HashRing {
 public:
  struct Token {
    std::uint64_t position = 0;
    std::uint32_t node = 0;  // list index
  };

  // Tokens "ID#0" .. "ID#(v-1)" hashed with XXH3-64, v = vnodes, or with weights
  // v = max(1, round(vnodes x w)) so that a node's arc length follows its weight.
  void build(const NodeList& nodes, std::uint32_t vnodes, bool use_weights);
  // Any tokens, for tests; sorted here.
  void build_from_tokens(std::vector<Token> tokens);

  // Index of the clockwise successor token of `hash` (wraps around to 0).
  std::size_t successor(std::uint64_t hash) const;
  std::size_t next(std::size_t token) const { return token + 1 == tokens_.size() ? 0 : token + 1; }
  const Token& token(std::size_t i) const { return tokens_[i]; }
  std::size_t size() const { return tokens_.size(); }
  std::size_t bytes() const { return tokens_.size() * sizeof(Token); }

 private:
  std::vector<Token> tokens_;  // sorted by position (ties by node index)
};

}  // namespace hrw::compare
