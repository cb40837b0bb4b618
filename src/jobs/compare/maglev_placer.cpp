// Maglev hashing: a key's backend is entry[hash(key) mod M]. Near-perfect balance (each
// backend gets M/N ± 1 slots) at the price of a little more than the minimal disruption.
#include "compare/key_hash.hpp"
#include "compare/maglev_table.hpp"
#include "compare/placer.hpp"

namespace hrw::compare {
namespace {

class MaglevPlacer final : public Placer {
 public:
  explicit MaglevPlacer(std::uint32_t table_size) : m_(table_size) {}
  std::string name() const override { return "maglev"; }
  void build(const NodeList& nodes) override {
    std::vector<MaglevPermutation> backends;
    for (const auto& id : nodes.ids) backends.push_back(maglev_permutation(id, m_));
    entry_ = maglev_populate(backends, m_);
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = entry_[key_hash(keys[i]) % m_];
  }
  std::size_t structure_bytes() const override { return entry_.size() * sizeof(entry_[0]); }

 private:
  std::uint64_t m_;
  std::vector<std::uint32_t> entry_;
};

}  // namespace

std::unique_ptr<Placer> make_maglev(std::uint32_t table_size) {
  return std::make_unique<MaglevPlacer>(table_size);
}

}  // namespace hrw::compare
