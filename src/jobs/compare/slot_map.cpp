#include "compare/slot_map.hpp"

#include <algorithm>
#include <unordered_map>

#include "compare/crc16.hpp"

namespace hrw::compare {

namespace {
constexpr std::uint32_t kNone = 0xFFFFFFFFu;

// Index of the smallest (or largest) count among `candidates`, first in list order on ties.
std::uint32_t pick(const std::vector<std::vector<std::uint32_t>>& slots_of,
                   const std::vector<std::uint32_t>& candidates, bool fewest) {
  std::uint32_t best = candidates.front();
  for (std::uint32_t c : candidates) {
    const auto n = slots_of[c].size(), b = slots_of[best].size();
    if (fewest ? n < b : n > b) best = c;
  }
  return best;
}
}  // namespace

SlotMap SlotMap::deal(std::uint32_t nodes) {
  SlotMap map;
  map.owner_.resize(kRedisSlots);
  for (std::uint32_t i = 0; i < nodes; ++i) {
    const std::uint64_t first = std::uint64_t{i} * kRedisSlots / nodes;
    const std::uint64_t last = std::uint64_t{i + 1} * kRedisSlots / nodes;
    for (std::uint64_t s = first; s < last; ++s) map.owner_[s] = i;
  }
  return map;
}

SlotMap SlotMap::change(const std::vector<std::string>& from_ids,
                        const std::vector<std::string>& to_ids) const {
  std::unordered_map<std::string, std::uint32_t> to_index;
  for (std::uint32_t i = 0; i < to_ids.size(); ++i) to_index.emplace(to_ids[i], i);
  std::vector<std::uint32_t> renumber(from_ids.size(), kNone);  // from index -> to index
  std::vector<bool> survivor(to_ids.size(), false);
  for (std::uint32_t i = 0; i < from_ids.size(); ++i) {
    auto it = to_index.find(from_ids[i]);
    if (it == to_index.end()) continue;
    renumber[i] = it->second;
    survivor[it->second] = true;
  }
  std::vector<std::uint32_t> survivors, newcomers;
  for (std::uint32_t i = 0; i < to_ids.size(); ++i)
    (survivor[i] ? survivors : newcomers).push_back(i);
  if (survivors.empty()) return deal(static_cast<std::uint32_t>(to_ids.size()));

  // slots_of[node]: the node's slots; sorted before step 3, so back() is its highest.
  std::vector<std::vector<std::uint32_t>> slots_of(to_ids.size());
  std::vector<std::uint32_t> orphans;
  for (std::uint32_t s = 0; s < kRedisSlots; ++s) {
    const std::uint32_t to = renumber[owner_[s]];
    (to == kNone ? orphans : slots_of[to]).push_back(s);
  }
  const std::size_t quota = kRedisSlots / to_ids.size();
  std::size_t next_orphan = 0;
  for (std::uint32_t n : newcomers)  // step 1
    while (slots_of[n].size() < quota && next_orphan < orphans.size())
      slots_of[n].push_back(orphans[next_orphan++]);
  for (; next_orphan < orphans.size(); ++next_orphan)  // step 2
    slots_of[pick(slots_of, survivors, true)].push_back(orphans[next_orphan]);
  for (auto& slots : slots_of) std::sort(slots.begin(), slots.end());
  std::vector<std::uint32_t> everyone(to_ids.size());
  for (std::uint32_t i = 0; i < everyone.size(); ++i) everyone[i] = i;
  for (std::uint32_t n : newcomers) {  // step 3
    while (slots_of[n].size() < quota) {
      auto& donor = slots_of[pick(slots_of, everyone, false)];
      slots_of[n].push_back(donor.back());
      donor.pop_back();
    }
  }
  SlotMap map;
  map.owner_.resize(kRedisSlots);
  for (std::uint32_t n = 0; n < slots_of.size(); ++n)
    for (std::uint32_t s : slots_of[n]) map.owner_[s] = n;
  return map;
}

}  // namespace hrw::compare
