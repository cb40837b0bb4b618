// Redis Cluster's slot ownership: 16384 slots, each owned by one node. A new cluster deals
// the slots in contiguous ranges; a membership change moves only the slots it must (as an
// operator running redis-cli reshard/rebalance would), so the history matters: the layout
// after a change depends on the layout before it.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hrw::compare {

class SlotMap {
 public:
  // Node i (of n) owns slots [floor(i S / n), floor((i + 1) S / n)).
  static SlotMap deal(std::uint32_t nodes);
  // The map after the ids change from `from_ids` (this map's numbering) to `to_ids`:
  //  1. slots of removed nodes are orphans; new nodes take orphans first, up to their
  //     quota floor(S / n);
  //  2. remaining orphans go one by one to the surviving node with the fewest slots;
  //  3. a new node still under quota takes slots, one at a time, from the node with the
  //     most slots (its highest-numbered slot).
  // Ties go to the first node in list order. When no node survives, the slots are dealt.
  SlotMap change(const std::vector<std::string>& from_ids,
                 const std::vector<std::string>& to_ids) const;

  std::uint32_t owner(std::uint32_t slot) const { return owner_[slot]; }
  const std::vector<std::uint32_t>& owners() const { return owner_; }
  std::size_t bytes() const { return owner_.size() * sizeof(owner_[0]); }

 private:
  std::vector<std::uint32_t> owner_;  // slot -> list index
};

}  // namespace hrw::compare
