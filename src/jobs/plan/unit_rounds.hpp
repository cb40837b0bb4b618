// Rounds for unit moves under "at most K moves sent and K received per node per round":
// an edge colouring of the bipartite multigraph sender-side × receiver-side with Δ
// colours (König), grouped K colours to a round, so exactly ⌈Δ / K⌉ rounds, the optimum.
// docs/plan.md explains the algorithm and its cost.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace hrw::plan_detail {

// `count` moves from node `from` (sender side) to node `to` (receiver side).
struct PairCount {
  std::uint32_t from, to;
  std::uint64_t count;
};

class UnitRounds {
 public:
  // pairs: distinct (from, to), from != to, node indices < nodes; per_round = K >= 1.
  UnitRounds(std::size_t nodes, const std::vector<PairCount>& pairs, std::uint64_t per_round);

  std::uint64_t max_degree() const { return max_degree_; }  // Δ
  std::uint64_t rounds() const { return max_degree_ / per_round_ + (max_degree_ % per_round_ != 0); }
  // The round (from 0) of the next move of pairs[pair]: a pair's moves take its colours
  // in order, so calling this once per move, in any order of moves, uses each colour once.
  std::uint64_t next_round(std::size_t pair);

 private:
  struct Interval {
    std::uint64_t start, count;  // colours [start, start + count)
  };
  std::uint64_t per_round_;
  std::uint64_t max_degree_ = 0;
  std::vector<std::vector<Interval>> colours_;  // per pair: its real moves' colours
  std::vector<std::size_t> cursor_;             // per pair: current interval
  std::vector<std::uint64_t> used_;             // per pair: colours used in it
};

}  // namespace hrw::plan_detail
