// Modulo: node = hash(key) mod N, bucket i = the i-th node of the list. The baseline every
// other scheme improves on: changing N remaps almost every key (about 1 - 1/max(N0, N1)).
#include "compare/key_hash.hpp"
#include "compare/placer.hpp"

namespace hrw::compare {
namespace {

class ModuloPlacer final : public Placer {
 public:
  std::string name() const override { return "modulo"; }
  void build(const NodeList& nodes) override { n_ = nodes.size(); }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      owners[i] = static_cast<std::uint32_t>(key_hash(keys[i]) % n_);
  }
  std::size_t structure_bytes() const override { return 0; }

 private:
  std::uint64_t n_ = 1;
};

}  // namespace

std::unique_ptr<Placer> make_modulo() { return std::make_unique<ModuloPlacer>(); }

}  // namespace hrw::compare
