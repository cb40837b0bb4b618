// A plan's moves put in rounds under per-node limits (ScheduleLimits). The moves are
// spilled to an unnamed temporary file in the output folder while the plan streams (memory
// stays flat in the number of keys), then given rounds and handed back round by round,
// input order inside a round. docs/plan.md gives the disk and memory this takes.
#pragma once
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "hrw/plan.hpp"
#include "spill_file.hpp"  // src/io
#include "plan/plan_builder.hpp"

namespace hrw::plan_detail {

struct ScheduledMove {
  std::uint64_t round;  // from 0
  std::string_view key;
  std::uint32_t from, to;
  std::uint64_t bytes, requests;
  std::uint64_t key_index;  // the key's position in the input (KeyChunk::first + i)
};

class ScheduledMoves : public MoveSink {
 public:
  ScheduledMoves(std::string dir, std::size_t nodes, const ScheduleLimits& limits);
  void add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from, std::uint32_t to) override;
  // Gives every move its round and calls `row` for each, round by round; checks that no
  // round exceeds a limit (std::logic_error otherwise).
  ScheduleSummary emit(const std::function<void(const ScheduledMove&)>& row);

 private:
  struct Record {
    std::uint32_t from, to;
    std::uint64_t bytes, requests;
    std::uint64_t key_index;
    std::uint32_t key_size;
  };
  std::string dir_;
  std::size_t nodes_;
  ScheduleLimits limits_;
  io::SpillFile spill_;
  // Per node: moves, bytes of moves up to B, moves larger than B, sent and received.
  std::vector<std::uint64_t> sent_, received_, sent_bytes_, received_bytes_;
  std::vector<std::uint64_t> sent_oversize_, received_oversize_;
  std::unordered_map<std::uint64_t, std::size_t> pair_index_;  // from * nodes + to -> pair
  std::vector<std::uint64_t> pair_count_;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pairs_;
  std::uint64_t moves_ = 0;
};

}  // namespace hrw::plan_detail
