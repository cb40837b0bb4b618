#include "plan/scheduled_moves.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

#include <fmt/format.h>

#include "plan/byte_rounds.hpp"
#include "plan/unit_rounds.hpp"

namespace hrw::plan_detail {

ScheduledMoves::ScheduledMoves(std::string dir, std::size_t nodes, const ScheduleLimits& limits)
    : dir_(std::move(dir)), nodes_(nodes), limits_(limits), spill_(dir_), sent_(nodes),
      received_(nodes), sent_bytes_(nodes), received_bytes_(nodes), sent_oversize_(nodes),
      received_oversize_(nodes) {}

void ScheduledMoves::add_move(const KeyChunk& chunk, std::size_t i, std::uint32_t from,
                              std::uint32_t to) {
  const std::string_view key = chunk.keys[i];
  const Record r{from, to, chunk.bytes_of(i), chunk.requests_of(i), chunk.first + i,
                 static_cast<std::uint32_t>(key.size())};
  spill_.write(&r, sizeof r);
  spill_.write(key.data(), key.size());
  ++sent_[from], ++received_[to];
  // A key larger than B takes a round alone: it counts as one round, not as its bytes.
  if (limits_.max_bytes_per_node && r.bytes > *limits_.max_bytes_per_node)
    ++sent_oversize_[from], ++received_oversize_[to];
  else
    sent_bytes_[from] += r.bytes, received_bytes_[to] += r.bytes;
  auto [it, fresh] = pair_index_.try_emplace(std::uint64_t{from} * nodes_ + to, pairs_.size());
  if (fresh) {
    pairs_.emplace_back(from, to);
    pair_count_.push_back(0);
  }
  ++pair_count_[it->second];
  ++moves_;
}

namespace {

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return a / b + (a % b != 0); }

// A move with its round, as the buckets hold it; the key is in the bucket's arena.
struct Placed {
  std::uint64_t round;
  std::uint32_t from, to;
  std::uint64_t bytes, requests;
  std::uint64_t key_index;
  std::uint64_t key_offset;
  std::uint32_t key_size;
};

// Per-round statistics and the limit check, fed the rows of one round after another.
class RoundCheck {
 public:
  RoundCheck(std::size_t nodes, const ScheduleLimits& limits)
      : limits_(limits), sent_(nodes), received_(nodes), sent_bytes_(nodes), received_bytes_(nodes) {}
  void add(const ScheduledMove& m) {
    if (stats_.empty() || stats_.back().round != m.round + 1) start(m.round + 1);
    RoundStats& s = stats_.back();
    ++s.moves;
    s.bytes += m.bytes;
    s.peak_send = std::max(s.peak_send, ++sent_[m.from]);
    s.peak_receive = std::max(s.peak_receive, ++received_[m.to]);
    s.peak_send_bytes = std::max(s.peak_send_bytes, sent_bytes_[m.from] += m.bytes);
    s.peak_receive_bytes = std::max(s.peak_receive_bytes, received_bytes_[m.to] += m.bytes);
    touched_.push_back(m.from);
    touched_.push_back(m.to);
    const auto& K = limits_.max_moves_per_node;
    const auto& B = limits_.max_bytes_per_node;
    bool over = K && (sent_[m.from] > *K || received_[m.to] > *K);
    // A move larger than B is allowed alone for its two nodes.
    if (B && (sent_bytes_[m.from] > *B || received_bytes_[m.to] > *B))
      over |= !(m.bytes > *B && sent_[m.from] == 1 && received_[m.to] == 1);
    if (over) throw std::logic_error(fmt::format("schedule: round {} exceeds a per-node limit", m.round + 1));
  }
  std::vector<RoundStats> take() { return std::move(stats_); }

 private:
  void start(std::uint64_t round) {
    if (!stats_.empty() && stats_.back().round >= round)
      throw std::logic_error("schedule: rounds out of order");
    for (std::uint32_t n : touched_) sent_[n] = received_[n] = sent_bytes_[n] = received_bytes_[n] = 0;
    touched_.clear();
    RoundStats s;
    s.round = round;
    stats_.push_back(s);
  }
  ScheduleLimits limits_;
  std::vector<std::uint64_t> sent_, received_, sent_bytes_, received_bytes_;
  std::vector<std::uint32_t> touched_;
  std::vector<RoundStats> stats_;
};

}  // namespace

ScheduleSummary ScheduledMoves::emit(const std::function<void(const ScheduledMove&)>& row) {
  ScheduleSummary out;
  out.limits = limits_;
  std::uint64_t max_moves = 0;
  for (std::size_t n = 0; n < nodes_; ++n) {
    max_moves = std::max({max_moves, sent_[n], received_[n]});
    if (const auto& B = limits_.max_bytes_per_node)
      out.byte_bound = std::max({out.byte_bound, sent_oversize_[n] + ceil_div(sent_bytes_[n], *B),
                                 received_oversize_[n] + ceil_div(received_bytes_[n], *B)});
  }
  if (limits_.max_moves_per_node) out.unit_bound = ceil_div(max_moves, *limits_.max_moves_per_node);
  out.lower_bound = std::max(out.unit_bound, out.byte_bound);

  // Rounds are given in input order (pass 1 over the spill)...
  std::unique_ptr<UnitRounds> unit;
  std::unique_ptr<ByteRounds> sized;
  if (limits_.max_bytes_per_node) {
    sized = std::make_unique<ByteRounds>(nodes_, *limits_.max_bytes_per_node, limits_.max_moves_per_node);
  } else {
    std::vector<PairCount> pairs;
    for (std::size_t p = 0; p < pairs_.size(); ++p)
      pairs.push_back({pairs_[p].first, pairs_[p].second, pair_count_[p]});
    unit = std::make_unique<UnitRounds>(nodes_, pairs, *limits_.max_moves_per_node);
  }
  auto round_of = [&](const Record& r) {
    if (sized) return sized->place(r.from, r.to, r.bytes);
    return unit->next_round(pair_index_.at(std::uint64_t{r.from} * nodes_ + r.to));
  };
  // ...into buckets of consecutive rounds, each small enough to sort in memory (about
  // kBucketBytes), so the rows come out round by round whatever the plan's size.
  constexpr std::uint64_t kBucketBytes = std::uint64_t{16} << 20;
  const std::uint64_t bound_rounds = std::max<std::uint64_t>(
      {out.lower_bound, 1, unit ? unit->rounds() : 0});
  std::uint64_t buckets = std::min<std::uint64_t>({spill_.size() / kBucketBytes + 1, 256, bound_rounds});
  // Byte rounds are only known once placed: bucket by the bound and let the last bucket
  // take the rounds beyond it.
  std::vector<std::unique_ptr<io::SpillFile>> files;
  if (buckets > 1)
    for (std::uint64_t b = 0; b < buckets; ++b) files.push_back(std::make_unique<io::SpillFile>(dir_));
  std::vector<Placed> placed;
  std::string arena;
  auto bucket_of = [&](std::uint64_t round) {
    return std::min(buckets - 1, round * buckets / bound_rounds);
  };
  spill_.rewind();
  Record r;
  std::string key;
  while (spill_.read(&r, sizeof r)) {
    key.resize(r.key_size);
    if (r.key_size && !spill_.read(key.data(), r.key_size)) throw std::runtime_error("temporary file: short read");
    const std::uint64_t round = round_of(r);
    const Placed p{round, r.from, r.to, r.bytes, r.requests, r.key_index, 0, r.key_size};
    if (buckets == 1) {
      placed.push_back(p);
      placed.back().key_offset = arena.size();
      arena += key;
    } else {
      io::SpillFile& f = *files[bucket_of(round)];
      f.write(&p, sizeof p);
      f.write(key.data(), key.size());
    }
  }
  out.rounds = sized ? sized->rounds() : unit->rounds();
  if (moves_ == 0) out.rounds = 0;
  if (sized) out.oversize_keys = sized->oversize();

  RoundCheck check(nodes_, limits_);
  auto flush = [&] {
    std::stable_sort(placed.begin(), placed.end(),
                     [](const Placed& a, const Placed& b) { return a.round < b.round; });
    for (const Placed& p : placed) {
      const ScheduledMove m{p.round, std::string_view(arena).substr(p.key_offset, p.key_size),
                            p.from, p.to, p.bytes, p.requests, p.key_index};
      check.add(m);
      row(m);
    }
    placed.clear();
    arena.clear();
  };
  if (buckets == 1) flush();
  for (auto& f : files) {
    f->rewind();
    Placed p;
    while (f->read(&p, sizeof p)) {
      p.key_offset = arena.size();
      arena.resize(arena.size() + p.key_size);
      if (p.key_size && !f->read(arena.data() + p.key_offset, p.key_size))
        throw std::runtime_error("temporary file: short read");
      placed.push_back(p);
    }
    f.reset();  // its disk space goes back before the next bucket is read
    flush();
  }
  out.per_round = check.take();
  std::uint64_t emitted = 0;
  for (const RoundStats& s : out.per_round) emitted += s.moves;
  if (emitted != moves_)
    throw std::logic_error(fmt::format("schedule: {} moves spilled but {} written", moves_, emitted));
  return out;
}

}  // namespace hrw::plan_detail
