// Plan accounting (contract §5). Every counter is incremented on its own path, so that the
// final check (before = out + stayed, after = in + stayed, moved + stayed = read) compares
// independent sums and catches a bookkeeping bug instead of restating it.
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/plan.hpp"
#include "hrw/balance.hpp"
#include "plan/plan_builder.hpp"

namespace hrw {

namespace {

// Union of both views' ids in memcmp order.
std::vector<std::string> union_ids(const ClusterView& a, const ClusterView& b) {
  std::vector<std::string> ids;
  for (auto& n : a.nodes()) ids.push_back(n.id);
  for (auto& n : b.nodes()) ids.push_back(n.id);
  std::sort(ids.begin(), ids.end(), [](const std::string& x, const std::string& y) { return id_less(x, y); });
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  return ids;
}

std::vector<std::uint32_t> to_union(const ClusterView& view, const std::vector<std::string>& ids) {
  std::vector<std::uint32_t> map(view.size());
  for (std::uint32_t i = 0; i < view.size(); ++i) {
    auto it = std::lower_bound(ids.begin(), ids.end(), view.node(i).id,
                               [](const std::string& x, const std::string& y) { return id_less(x, y); });
    map[i] = static_cast<std::uint32_t>(it - ids.begin());
  }
  return map;
}

bool contains(const std::vector<std::uint32_t>& set, std::uint32_t node) {
  return std::find(set.begin(), set.end(), node) != set.end();
}

ClusterView without_cuts(const ClusterView& view) {
  return ClusterView(spec_with_cuts(view, std::vector<std::uint32_t>(view.size(), 0)));
}

}  // namespace

// Contract §9, "what is reported": a plan between views with cuts is set beside the plan
// between the same views without them. Same nodes in the same index order as the views.
struct PlanBuilder::PlainViews {
  PlainViews(const ClusterView& from, const ClusterView& to, const PlaceOptions& from_place,
             const PlaceOptions& to_place)
      : a(without_cuts(from)), b(without_cuts(to)),
        placer(validate_request(a, from_place), validate_request(b, to_place)) {}
  ClusterView a, b;
  PairPlacer placer;
};

// Contract v4 §7: the slots B holds beyond A's, node by node, over R_B · keys. No assignment
// with B's per-node slot counts creates fewer copies. When both views hold as many slots
// in all this is v2's ½ Σ |slots_A − slots_B| / (R · keys); when B holds fewer (a lost zone
// with partial sets, a lower replica count) v2's formula is no lower bound.
double PlanSummary::slot_ideal_fraction() const {
  if (read.keys == 0) return 0.0;
  const double slots = static_cast<double>(replicas) * static_cast<double>(read.keys);
  std::uint64_t gains = 0;
  for (const NodeFlow& f : nodes) gains += f.after.keys > f.before.keys ? f.after.keys - f.before.keys : 0;
  return static_cast<double>(gains) / slots;
}

std::uint64_t PlanSummary::bytes_copied() const {
  std::uint64_t total = 0;
  for (const NodeFlow& f : nodes) add_checked(total, f.in.bytes, "bytes copied");
  return total;
}

double ideal_fraction(const ClusterView& a, const ClusterView& b) {
  return total_variation_distance(id_shares(a), id_shares(b));
}

std::optional<double> expected_fraction(const ClusterView& a, const ClusterView& b) {
  if (a.seed() != b.seed() || a.hash() != b.hash() || a.hierarchy() || b.hierarchy()) return std::nullopt;
  // Contract §9: with a non-zero cut a key may stay off its best node over A ∪ B, so the
  // formula below does not hold (docs/plan.md).
  if (a.has_cuts() || b.has_cuts()) return std::nullopt;
  // Weights summed in memcmp order of the ids (both views store their nodes so).
  double both = 0, either = 0;
  for (const Node& n : a.nodes()) {
    either += n.weight;
    if (const auto in_b = b.find(n.id)) {
      if (b.node(*in_b).weight != n.weight) return std::nullopt;  // reweighted
      both += n.weight;
    }
  }
  for (const Node& n : b.nodes())
    if (!a.find(n.id)) either += n.weight;
  return 1.0 - both / either;
}

std::optional<std::string> incompatibility_warning(const ClusterView& a, const ClusterView& b) {
  if (a.seed() == b.seed() && a.hash() == b.hash()) return std::nullopt;
  return fmt::format(
      "warning: {} (seed {}, hash {}) and {} (seed {}, hash {}) hash keys differently: "
      "every key may move",
      a.source(), quote_for_message(a.seed()), to_string(a.hash()), b.source(),
      quote_for_message(b.seed()), to_string(b.hash()));
}

namespace {
PlaceOptions with_replicas(std::uint32_t replicas) {
  PlaceOptions o;
  o.replicas = replicas;
  return o;
}
}  // namespace

PlanBuilder::PlanBuilder(const ClusterView& from, const ClusterView& to, std::uint32_t replicas,
                         std::uint64_t batch_size)
    : PlanBuilder(from, to, with_replicas(replicas), with_replicas(replicas), batch_size) {}

PlanBuilder::PlanBuilder(const ClusterView& from, const ClusterView& to, const PlaceOptions& from_place,
                         const PlaceOptions& to_place, std::uint64_t batch_size)
    : from_(&from), to_(&to), from_rule_(rule_of(from_place)), to_rule_(rule_of(to_place)),
      from_replicas_(from_place.replicas), replicas_(to_place.replicas), batch_size_(std::max<std::uint64_t>(batch_size, 1)),
      ids_(union_ids(from, to)), from_union_(to_union(from, ids_)), to_union_(to_union(to, ids_)),
      flows_(ids_.size()) {
  for (std::size_t u = 0; u < ids_.size(); ++u) flows_[u].id = ids_[u];
  if (from.has_cuts() || to.has_cuts()) plain_ = std::make_unique<const PlainViews>(from, to, from_place, to_place);
}

PlanBuilder::~PlanBuilder() = default;

void PlanBuilder::without_plain_plan() { plain_.reset(); }

LoadCounts PlanBuilder::plain_moved(const KeyChunk& chunk) const {
  Placement a, b;
  plain_->placer.place(chunk.keys, a, b);
  LoadCounts moved;
  std::vector<std::uint32_t> set_a, set_b;
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    holders(a, b, i, set_a, set_b);
    std::sort(set_a.begin(), set_a.end());
    std::sort(set_b.begin(), set_b.end());
    if (set_a != set_b) moved.add(chunk, i);
  }
  return moved;
}

void PlanBuilder::holders(const Placement& from, const Placement& to, std::size_t i, std::vector<std::uint32_t>& in_a,
                          std::vector<std::uint32_t>& in_b) const {
  in_a.clear();
  in_b.clear();
  for (std::uint32_t r = 0; r < from_replicas_; ++r)
    if (const std::uint32_t n = from.node(i, r); n != kNoNode) in_a.push_back(from_union_[n]);
  for (std::uint32_t r = 0; r < replicas_; ++r)
    if (const std::uint32_t n = to.node(i, r); n != kNoNode) in_b.push_back(to_union_[n]);
}

bool PlanBuilder::keys_only(const KeyChunk& chunk) const {
  return replicas_ == 1 && from_replicas_ == 1 && chunk.bytes.empty() && chunk.requests.empty();
}

void PlanBuilder::digest(const ChunkWork& work, PlanChunk& state, const MoveCsv* rows) const {
  if (plain_) state.plain_moved = plain_moved(work.chunk), state.plain_counted = true;
  if (keys_only(work.chunk)) count_keys(work.chunk, work.placements[0], work.placements[1], state, rows);
}

void PlanBuilder::add(const ChunkWork& work, PlanChunk& state, MoveSink* moves) {
  if (plain_) {
    plain_moved_ += state.plain_counted ? state.plain_moved : plain_moved(work.chunk);
    state.plain_counted = false;
  }
  if (!keys_only(work.chunk)) return account(work.chunk, work.placements[0], work.placements[1], moves);
  count_overflow(work.placements[0], work.placements[1]);
  if (state.counts.empty())  // not digested
    count_keys(work.chunk, work.placements[0], work.placements[1], state);
  fold_keys(work.chunk, state, moves);
  state.counts.clear();  // a reused slot must be digested again (count_keys resets its rows)
}

void PlanBuilder::add(const KeyChunk& chunk, const Placement& from, const Placement& to,
                      MoveSink* moves) {
  if (plain_) plain_moved_ += plain_moved(chunk);
  account(chunk, from, to, moves);
}

void PlanBuilder::account(const KeyChunk& chunk, const Placement& from, const Placement& to,
                          MoveSink* moves) {
  count_overflow(from, to);
  if (keys_only(chunk)) {
    PlanChunk state;
    count_keys(chunk, from, to, state);
    fold_keys(chunk, state, moves);
  } else if (replicas_ == 1 && from_replicas_ == 1) {
    add_loads(chunk, from, to, moves);
  } else {
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      read_.add(chunk, i);
      add_replicated(chunk, i, from, to, moves);
    }
  }
}

void PlanBuilder::count_overflow(const Placement& from, const Placement& to) {
  overflow_[0] += from.overflow;
  overflow_[1] += to.overflow;
}

// R = 1, keys only, the hot path of a plan. Runs on the thread that placed the chunk and
// fills `state` (PlanChunk) with all that the in-order fold needs, so that the fold touches
// only this small state, not the placements. Local pointers keep the loop's state in
// registers.
void PlanBuilder::count_keys(const KeyChunk& chunk, const Placement& from, const Placement& to,
                             PlanChunk& state, const MoveCsv* rows) const {
  std::vector<std::uint64_t>& counts = state.counts;
  const std::size_t u = ids_.size();
  const std::size_t n = chunk.size();
  counts.assign(5 * u + 2, 0);
  state.moved.grow(n, 0);
  state.moved_union.grow(2 * n, 0);
  std::uint64_t* before = counts.data();
  std::uint64_t* after = before + u;
  std::uint64_t* stayed = after + u;
  std::uint64_t* out = stayed + u;
  std::uint64_t* in = out + u;
  std::uint32_t* moved_at = state.moved.data();
  std::uint32_t* moved_union = state.moved_union.data();
  const std::uint32_t* from_owner = from.nodes.data();  // R = 1: one node per key
  const std::uint32_t* to_owner = to.nodes.data();
  const std::uint32_t* from_union = from_union_.data();
  const std::uint32_t* to_union = to_union_.data();
  std::size_t moved_count = 0;
  std::uint64_t stayed_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t a = from_union[from_owner[i]];
    const std::uint32_t b = to_union[to_owner[i]];
    ++before[a];
    ++after[b];
    if (a == b) {
      ++stayed[a];
      ++stayed_count;
    } else {
      ++out[a];
      ++in[b];
      moved_union[2 * moved_count] = a;
      moved_union[2 * moved_count + 1] = b;
      moved_at[moved_count++] = static_cast<std::uint32_t>(i);
    }
  }
  counts[5 * u] = stayed_count;
  counts[5 * u + 1] = moved_count;
  state.rows.clear();
  state.row_ends.clear();
  if (!rows) return;
  for (std::size_t m = 0; m < moved_count; ++m) {
    const std::uint32_t i = moved_at[m];
    rows->append_unbatched_row(state.rows, chunk.keys[i], moved_union[2 * m], moved_union[2 * m + 1],
                               chunk.bytes_of(i), chunk.requests_of(i));
    state.row_ends.push_back(static_cast<std::uint32_t>(state.rows.size()));
  }
}

// In input order: the counts folded into the running totals, the moved keys handed to the
// sink in input order.
void PlanBuilder::fold_keys(const KeyChunk& chunk, const PlanChunk& state, MoveSink* moves) {
  const std::vector<std::uint64_t>& counts = state.counts;
  const std::size_t u = ids_.size();
  for (std::size_t node = 0; node < u; ++node) {
    flows_[node].before.keys += counts[node];
    flows_[node].after.keys += counts[u + node];
    flows_[node].stayed.keys += counts[2 * u + node];
    flows_[node].out.keys += counts[3 * u + node];
    flows_[node].in.keys += counts[4 * u + node];
  }
  stayed_.keys += counts[5 * u];
  read_.keys += chunk.size();
  const std::uint64_t moved_count = counts[5 * u + 1];
  moved_.keys += moved_count;
  rows_ += moved_count;
  if (!moves) return;
  // Rows rendered in digest serve only the sink whose format they are in.
  const bool rendered = moves->row_format() && state.row_ends.size() == moved_count;
  for (std::uint64_t m = 0; m < moved_count; ++m) {
    const std::uint32_t i = state.moved.data()[m];
    const std::uint32_t a = state.moved_union.data()[2 * m];
    const std::uint32_t b = state.moved_union.data()[2 * m + 1];
    if (rendered) {
      const std::uint32_t begin = m ? state.row_ends[m - 1] : 0;
      moves->add_move(chunk, i, a, b, std::string_view(state.rows).substr(begin, state.row_ends[m] - begin));
    } else {
      moves->add_move(chunk, i, a, b);
    }
    moves->key_changed(chunk, i, std::span(&a, 1), std::span(&b, 1));
  }
}

// R = 1 with bytes and/or requests: every counter gets the key's loads.
void PlanBuilder::add_loads(const KeyChunk& chunk, const Placement& from, const Placement& to,
                            MoveSink* moves) {
  for (std::size_t i = 0; i < chunk.size(); ++i) {
    read_.add(chunk, i);
    const std::uint32_t a = from_union_[from.owner(i)];
    const std::uint32_t b = to_union_[to.owner(i)];
    flows_[a].before.add(chunk, i);
    flows_[b].after.add(chunk, i);
    if (a == b) {
      stayed_.add(chunk, i);
      flows_[a].stayed.add(chunk, i);
      continue;
    }
    moved_.add(chunk, i);
    flows_[a].out.add(chunk, i);
    flows_[b].in.add(chunk, i);
    if (moves) {
      moves->add_move(chunk, i, a, b);
      moves->key_changed(chunk, i, std::span(&a, 1), std::span(&b, 1));
    }
    ++rows_;
  }
}

// R > 1: counts are replica slots. A node of B's set missing from A's set gains a slot
// (one moves.csv row: copy from a node that keeps a replica, the best-ranked in A, else
// from A's owner); a node of A's set missing from B's set loses one.
void PlanBuilder::add_replicated(const KeyChunk& chunk, std::size_t i, const Placement& from,
                                 const Placement& to, MoveSink* moves) {
  holders(from, to, i, set_a_, set_b_);
  std::uint32_t source = set_a_.front();  // A's owner, unless a node keeps its replica
  for (std::uint32_t n : set_a_)
    if (contains(set_b_, n)) {
      source = n;
      break;
    }
  bool changed = set_a_.size() != set_b_.size();
  for (std::uint32_t n : set_a_) {
    flows_[n].before.add(chunk, i);
    if (contains(set_b_, n)) {
      flows_[n].stayed.add(chunk, i);
    } else {
      flows_[n].out.add(chunk, i);
      changed = true;
    }
  }
  for (std::uint32_t n : set_b_) {
    flows_[n].after.add(chunk, i);
    if (contains(set_a_, n)) continue;
    flows_[n].in.add(chunk, i);
    changed = true;
    if (moves) moves->add_move(chunk, i, source, n);
    ++rows_;
  }
  (changed ? moved_ : stayed_).add(chunk, i);
  if (set_a_.front() != set_b_.front()) owner_changes_.add(chunk, i);
  if (moves && (changed || set_a_.front() != set_b_.front())) moves->key_changed(chunk, i, set_a_, set_b_);
}

PlanSummary PlanBuilder::finish(std::uint64_t keys_read, bool has_bytes, bool has_requests) const {
  auto fail = [](const std::string& what) {
    throw std::logic_error("plan accounting check failed: " + what);
  };
  if (read_.keys != keys_read)
    fail(fmt::format("{} keys read but {} accounted for", keys_read, read_.keys));
  LoadCounts moved_stayed = moved_;
  moved_stayed += stayed_;
  if (!(moved_stayed == read_))
    fail(fmt::format("moved {} + stayed {} != read {}", moved_.keys, stayed_.keys, read_.keys));
  LoadCounts sum_in, sum_out;
  for (const NodeFlow& f : flows_) {
    LoadCounts before = f.out, after = f.in;
    before += f.stayed;
    after += f.stayed;
    if (!(before == f.before) || !(after == f.after))
      fail(fmt::format("node {}: before {} / after {} vs out {}, in {}, stayed {}", f.id,
                       f.before.keys, f.after.keys, f.out.keys, f.in.keys, f.stayed.keys));
    sum_in += f.in;
    sum_out += f.out;
  }
  if (replicas_ == 1 && from_replicas_ == 1 && (!(sum_in == moved_) || !(sum_out == moved_)))
    fail(fmt::format("sum in {} / sum out {} != moved {}", sum_in.keys, sum_out.keys, moved_.keys));
  if (sum_in.keys != rows_) fail(fmt::format("{} move rows for {} slots gained", rows_, sum_in.keys));

  PlanSummary s;
  s.from_version = from_->version();
  s.to_version = to_->version();
  s.replicas = replicas_;
  s.from_replicas = from_replicas_;
  s.from_rule = from_rule_;
  s.to_rule = to_rule_;
  s.batch_size = batch_size_;
  s.read = read_;
  s.moved = moved_;
  s.stayed = stayed_;
  s.owner_changes = s.single() ? moved_ : owner_changes_;
  s.rows = rows_;
  s.batches = batch_count(rows_, batch_size_, moved_.keys);
  s.ideal_fraction = ideal_fraction(*from_, *to_);
  if (s.single()) s.expected_fraction = expected_fraction(*from_, *to_);
  if (from_->has_cuts()) s.from_overflow = overflow_[0];
  if (to_->has_cuts()) s.to_overflow = overflow_[1];
  if (plain_) s.plain_moved = plain_moved_;
  s.has_bytes = has_bytes;
  s.has_requests = has_requests;
  s.nodes = flows_;
  for (std::uint32_t n = 0; n < from_->size(); ++n) s.nodes[from_union_[n]].target_before = from_->share(n);
  for (std::uint32_t n = 0; n < to_->size(); ++n) s.nodes[to_union_[n]].target_after = to_->share(n);
  return s;
}

}  // namespace hrw
