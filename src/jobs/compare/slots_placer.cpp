// Redis Cluster-style fixed hash slots: key -> CRC16 slot -> slot owner. The slot layout
// carries over a membership change, so only the slots handed over move.
#include "compare/crc16.hpp"
#include "compare/placer.hpp"
#include "compare/slot_map.hpp"

namespace hrw::compare {
namespace {

class SlotsPlacer final : public Placer {
 public:
  std::string name() const override { return "slots"; }
  void build(const NodeList& nodes) override {
    ids_ = nodes.ids;
    map_ = SlotMap::deal(static_cast<std::uint32_t>(nodes.size()));
  }
  std::string change_to(const NodeList& nodes) override {
    map_ = map_.change(ids_, nodes.ids);
    ids_ = nodes.ids;
    return {};
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = map_.owner(redis_key_slot(keys[i]));
  }
  std::size_t structure_bytes() const override { return map_.bytes(); }

 private:
  std::vector<std::string> ids_;
  SlotMap map_;
};

}  // namespace

std::unique_ptr<Placer> make_slots() { return std::make_unique<SlotsPlacer>(); }

}  // namespace hrw::compare
