#include "plan/byte_rounds.hpp"

#include <algorithm>
#include <limits>

namespace hrw::plan_detail {

ByteRounds::ByteRounds(std::size_t nodes, std::uint64_t max_bytes,
                       std::optional<std::uint64_t> max_moves)
    : nodes_(nodes), max_bytes_(max_bytes),
      max_moves_(max_moves.value_or(std::numeric_limits<std::uint64_t>::max())),
      first_send_(nodes, 0), first_receive_(nodes, 0) {}

bool ByteRounds::fits(const Side& s, std::uint64_t bytes) const {
  return s.moves < max_moves_ && s.bytes + bytes <= max_bytes_;
}

bool ByteRounds::full(const Side& s) const { return s.moves >= max_moves_ || s.bytes >= max_bytes_; }

bool ByteRounds::idle(const Load& l) { return l.send.moves == 0 && l.receive.moves == 0; }

std::uint64_t ByteRounds::open_round() {
  loads_.resize(loads_.size() + nodes_);
  return rounds_++;
}

std::uint64_t ByteRounds::place(std::uint32_t from, std::uint32_t to, std::uint64_t bytes) {
  if (bytes > max_bytes_) {
    // Alone for both nodes: the first round in which neither sends nor receives anything
    // (every round before a node's first_* pointers is full, so the search starts there).
    ++oversize_;
    std::uint64_t r = std::max({first_send_[from], first_receive_[from], first_send_[to], first_receive_[to]});
    while (r < rounds_ && !(idle(at(r, from)) && idle(at(r, to)))) ++r;
    if (r == rounds_) open_round();
    for (std::uint32_t n : {from, to}) {
      Load& l = at(r, n);
      l.send = l.receive = {max_bytes_, max_moves_};
      advance(n);
    }
    return r;
  }
  std::uint64_t r = std::max(first_send_[from], first_receive_[to]);
  while (r < rounds_ && !(fits(at(r, from).send, bytes) && fits(at(r, to).receive, bytes))) ++r;
  if (r == rounds_) open_round();
  Side& s = at(r, from).send;
  Side& d = at(r, to).receive;
  s.bytes += bytes, s.moves += 1;
  d.bytes += bytes, d.moves += 1;
  advance(from);
  advance(to);
  return r;
}

void ByteRounds::advance(std::uint32_t n) {
  while (first_send_[n] < rounds_ && full(at(first_send_[n], n).send)) ++first_send_[n];
  while (first_receive_[n] < rounds_ && full(at(first_receive_[n], n).receive)) ++first_receive_[n];
}

}  // namespace hrw::plan_detail
