// The scalar reference of contract §9 (capacity cuts): placement with cuts and balanced cuts
// by deferred acceptance, written from the contract text, one key at a time. Like
// reference.cpp it favours obviousness over speed and is built without tree vectorisation.
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "hrw/reference.hpp"

namespace hrw::reference {

bool clears(const ClusterView& view, const PairScore& s) { return s.r >= view.node(s.node).cut; }

CutReplicas place_with_cuts(const ClusterView& view, std::string_view key, std::uint32_t r,
                            std::string_view label, bool allow_partial) {
  const std::vector<PairScore> ranking = rank(view, key);
  const std::vector<std::uint32_t> domain =
      label.empty() ? std::vector<std::uint32_t>{} : view.domains(label);
  std::vector<bool> taken(view.size(), false);
  CutReplicas out;
  // Pass 1 accepts the nodes that clear the key, pass 2 the others, both in ranking order.
  for (int pass = 0; pass < 2; ++pass) {
    for (const PairScore& s : ranking) {
      if (out.nodes.size() == r) break;
      if (clears(view, s) != (pass == 0)) continue;
      if (!label.empty()) {
        if (taken[domain[s.node]]) continue;
        taken[domain[s.node]] = true;
      }
      out.nodes.push_back(s.node);
      if (pass == 1) out.overflow = true;
    }
  }
  out.partial = out.nodes.size() < r;
  if (out.partial && !allow_partial)
    throw too_few_domains(view, r, label, static_cast<std::uint32_t>(out.nodes.size()));
  return out;
}

std::vector<std::uint64_t> capacities(const ClusterView& view, std::uint64_t total_load,
                                      double eps) {
  double sum_w = 0;  // nodes are stored in memcmp order of their ids
  for (const Node& n : view.nodes()) sum_w += n.weight;
  std::vector<std::uint64_t> out;
  for (const Node& n : view.nodes()) {
    const double c = std::floor((1.0 + eps) * (n.weight / sum_w) * static_cast<double>(total_load));
    out.push_back(c >= 0x1p64 ? std::numeric_limits<std::uint64_t>::max()
                              : static_cast<std::uint64_t>(c));
  }
  return out;
}

BalancedCuts balanced_cuts(const ClusterView& view, const std::vector<std::string>& keys,
                           const std::vector<std::uint64_t>& loads, double eps) {
  if (keys.size() != loads.size()) throw std::logic_error("balanced_cuts: one load per key");
  const std::size_t n = view.size();
  std::uint64_t total = 0;
  for (std::uint64_t l : loads) {
    if (total + l < total) throw std::logic_error("balanced_cuts: total load overflows");
    total += l;
  }
  BalancedCuts out;
  out.capacity = capacities(view, total, eps);
  out.load.assign(n, 0);
  out.holder.assign(keys.size(), kNoNode);
  // Every key's ranking (the view's own rule, §3) and the next node it proposes to.
  std::vector<std::vector<PairScore>> ranking(keys.size());
  for (std::size_t k = 0; k < keys.size(); ++k) ranking[k] = rank(view, keys[k]);
  std::vector<std::size_t> next(keys.size(), 0);
  struct Proposal {
    std::uint32_t r;
    std::size_t key;
  };
  // Per node, the keys it holds, in the node's order. A key a node rejects is rejected for
  // good (more proposers never lower the node's line), so it leaves the list.
  std::vector<std::vector<Proposal>> proposers(n);
  std::vector<bool> rejected(n, false);  // the node ever rejected a key
  auto before = [&](const Proposal& a, const Proposal& b) {
    if (a.r != b.r) return a.r > b.r;
    return id_less(keys[a.key], keys[b.key]);
  };
  std::vector<std::size_t> free;  // keys to propose, taken in input order
  for (std::size_t k = keys.size(); k-- > 0;) free.push_back(k);
  while (!free.empty()) {
    const std::size_t k = free.back();
    free.pop_back();
    if (next[k] == n) continue;  // rejected by every node: overflow
    const PairScore& s = ranking[k][next[k]++];
    std::vector<Proposal>& list = proposers[s.node];
    const Proposal p{s.r, k};
    list.insert(std::upper_bound(list.begin(), list.end(), p, before), p);
    // Hold each proposer whose higher-ordered proposers' total load is below capacity.
    std::uint64_t sum = 0;
    std::size_t h = 0;
    while (h < list.size() && sum < out.capacity[s.node]) sum += loads[list[h++].key];
    // Proposers from h on are rejected (the newcomer, or keys held until now): they
    // propose on.
    for (std::size_t j = 0; j < list.size(); ++j) {
      const std::size_t key = list[j].key;
      if (j < h) {
        out.holder[key] = s.node;
      } else {
        out.holder[key] = kNoNode;
        free.push_back(key);
      }
    }
    if (h < list.size()) {
      rejected[s.node] = true;
      list.resize(h);
    }
  }
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::vector<Proposal>& list = proposers[i];
    for (const Proposal& p : list) out.load[i] += loads[p.key];
    if (rejected[i]) out.cuts.push_back(list.empty() ? 0xFFFFFFFFu : list.back().r);
    else out.cuts.push_back(0);
  }
  for (std::uint32_t h : out.holder) out.overflow_keys += h == kNoNode;
  return out;
}

}  // namespace hrw::reference
