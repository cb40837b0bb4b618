// Rounds under a per-node move limit: an edge colouring of the bipartite multigraph of
// pair multiplicities, without expanding them (padding to Δ-regular, then perfect matchings
// repaired by augmenting paths); round = colour / K. docs/plan.md, "Rounds".
#include "plan/unit_rounds.hpp"

#include <algorithm>
#include <stdexcept>
#include <unordered_map>

namespace hrw::plan_detail {

namespace {

struct Entry {
  std::uint32_t from, to;
  std::uint64_t real, weight;  // weight = real + dummy, what is left to colour
};

class Matcher {
 public:
  Matcher(std::size_t n, std::vector<Entry>& entries)
      : entries_(entries), adj_(n), row_(n, kNone), col_(n, kNone), seen_(n, 0) {
    for (std::size_t e = 0; e < entries.size(); ++e) adj_[entries[e].from].push_back(e);
  }
  void match(std::uint32_t u) {
    ++stamp_;
    if (!augment(u)) throw std::logic_error("schedule: a regular graph without a perfect matching");
  }
  std::size_t row(std::uint32_t u) const { return row_[u]; }
  void drop(std::size_t e) {
    row_[entries_[e].from] = kNone;
    col_[entries_[e].to] = kNone;
  }
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

 private:
  // Kuhn's augmenting path from sender u; spent pairs are pruned from the lists.
  bool augment(std::uint32_t u) {
    auto& list = adj_[u];
    for (std::size_t k = 0; k < list.size();) {
      const std::size_t e = list[k];
      if (entries_[e].weight == 0) {
        list[k] = list.back();
        list.pop_back();
        continue;
      }
      ++k;
      const std::uint32_t v = entries_[e].to;
      if (seen_[v] == stamp_) continue;
      seen_[v] = stamp_;
      if (col_[v] == kNone || augment(entries_[col_[v]].from)) {
        row_[u] = e;
        col_[v] = e;
        return true;
      }
    }
    return false;
  }
  std::vector<Entry>& entries_;
  std::vector<std::vector<std::size_t>> adj_;
  std::vector<std::size_t> row_, col_;  // matched entry per sender / receiver
  std::vector<std::uint64_t> seen_;
  std::uint64_t stamp_ = 0;
};

}  // namespace

UnitRounds::UnitRounds(std::size_t n, const std::vector<PairCount>& pairs, std::uint64_t per_round)
    : per_round_(std::max<std::uint64_t>(per_round, 1)), colours_(pairs.size()),
      cursor_(pairs.size(), 0), used_(pairs.size(), 0) {
  std::vector<std::uint64_t> out(n, 0), in(n, 0);
  std::vector<Entry> entries;
  std::unordered_map<std::uint64_t, std::size_t> index;  // from * n + to -> entry
  for (const PairCount& p : pairs) {
    out[p.from] += p.count;
    in[p.to] += p.count;
    index[std::uint64_t{p.from} * n + p.to] = entries.size();
    entries.push_back({p.from, p.to, p.count, p.count});
  }
  for (std::size_t v = 0; v < n; ++v) max_degree_ = std::max({max_degree_, out[v], in[v]});
  if (max_degree_ == 0) return;
  // 1. Pad to Δ-regular.
  for (std::size_t u = 0, v = 0; u < n && v < n;) {
    if (out[u] == max_degree_) { ++u; continue; }
    if (in[v] == max_degree_) { ++v; continue; }
    const std::uint64_t add = std::min(max_degree_ - out[u], max_degree_ - in[v]);
    const std::uint64_t key = std::uint64_t{u} * n + v;
    auto [it, fresh] = index.try_emplace(key, entries.size());
    if (fresh)
      entries.push_back({static_cast<std::uint32_t>(u), static_cast<std::uint32_t>(v), 0, 0});
    entries[it->second].weight += add;
    out[u] += add;
    in[v] += add;
  }
  // 2. Peel perfect matchings off.
  Matcher m(n, entries);
  for (std::uint32_t u = 0; u < n; ++u) m.match(u);
  std::vector<std::uint64_t> given(entries.size(), 0);  // real colours given per entry
  std::uint64_t colour = 0;
  while (colour < max_degree_) {
    std::uint64_t c = max_degree_ - colour;
    for (std::uint32_t u = 0; u < n; ++u) c = std::min(c, entries[m.row(u)].weight);
    for (std::uint32_t u = 0; u < n; ++u) {
      const std::size_t e = m.row(u);
      Entry& en = entries[e];
      // The real moves take the first colours an entry gets; its dummy edges the rest.
      const std::uint64_t real = std::min(c, en.real - given[e]);
      if (real > 0 && e < pairs.size()) colours_[e].push_back({colour, real});
      given[e] += real;
      en.weight -= c;
      if (en.weight == 0) m.drop(e);
    }
    colour += c;
    if (colour < max_degree_)
      for (std::uint32_t u = 0; u < n; ++u)
        if (m.row(u) == Matcher::kNone) m.match(u);
  }
  for (std::size_t p = 0; p < pairs.size(); ++p)
    if (given[p] != pairs[p].count) throw std::logic_error("schedule: a pair's moves were not all coloured");
}

std::uint64_t UnitRounds::next_round(std::size_t pair) {
  auto& list = colours_[pair];
  std::size_t& k = cursor_[pair];
  if (k < list.size() && used_[pair] == list[k].count) ++k, used_[pair] = 0;
  if (k >= list.size()) throw std::logic_error("schedule: more moves than coloured for a pair");
  return (list[k].start + used_[pair]++) / per_round_;
}

}  // namespace hrw::plan_detail
