// Rounds for moves with sizes under "at most B bytes (and K moves, when given) sent and
// received per node per round": first fit in input order. A move larger than B gets the
// first round in which neither of its two nodes sends or receives anything, alone for
// them. docs/plan.md gives the measured distance to the lower bound.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace hrw::plan_detail {

class ByteRounds {
 public:
  ByteRounds(std::size_t nodes, std::uint64_t max_bytes, std::optional<std::uint64_t> max_moves);
  // The round (from 0) of a move of `bytes` from `from` to `to`.
  std::uint64_t place(std::uint32_t from, std::uint32_t to, std::uint64_t bytes);
  std::uint64_t rounds() const { return rounds_; }
  std::uint64_t oversize() const { return oversize_; }

 private:
  struct Side {
    std::uint64_t bytes = 0, moves = 0;
  };
  struct Load {
    Side send, receive;
  };
  Load& at(std::uint64_t round, std::uint32_t node) { return loads_[round * nodes_ + node]; }
  bool fits(const Side& s, std::uint64_t bytes) const;
  bool full(const Side& s) const;
  static bool idle(const Load& l);
  // Moves first_send_[n] / first_receive_[n] past the rounds now full for node n.
  void advance(std::uint32_t n);
  std::uint64_t open_round();

  std::size_t nodes_;
  std::uint64_t max_bytes_;
  std::uint64_t max_moves_;  // no limit: max
  std::uint64_t rounds_ = 0;
  std::uint64_t oversize_ = 0;
  std::vector<Load> loads_;  // rounds × nodes
  // Per node: every earlier round is full for sending / receiving.
  std::vector<std::uint64_t> first_send_, first_receive_;
};

}  // namespace hrw::plan_detail
