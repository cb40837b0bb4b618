// The consistent-hash ring, plain and with bounded loads. Both use weights through the
// token count (a node with twice the weight gets twice the tokens, as Ketama does).
#include <stdexcept>

#include "compare/bounded_caps.hpp"
#include "compare/hash_ring.hpp"
#include "compare/key_hash.hpp"
#include "compare/placer.hpp"

namespace hrw::compare {
namespace {

class RingPlacer final : public Placer {
 public:
  explicit RingPlacer(std::uint32_t vnodes) : vnodes_(vnodes) {}
  std::string name() const override { return "ring"; }
  void build(const NodeList& nodes) override { ring_.build(nodes, vnodes_, nodes.weighted); }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      owners[i] = ring_.token(ring_.successor(key_hash(keys[i]))).node;
  }
  std::size_t structure_bytes() const override { return ring_.bytes(); }
  bool uses_weights() const override { return true; }

 private:
  std::uint32_t vnodes_;
  HashRing ring_;
};

// Keys in input order; a key whose successor server is full walks clockwise to the next
// distinct server with room.
class RingBoundedPlacer final : public Placer {
 public:
  RingBoundedPlacer(std::uint32_t vnodes, double load_factor)
      : vnodes_(vnodes), load_factor_(load_factor) {}
  std::string name() const override { return "ring-bounded"; }
  void build(const NodeList& nodes) override {
    nodes_ = nodes;
    ring_.build(nodes, vnodes_, nodes.weighted);
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    const auto caps = bounded_caps(nodes_, keys.size(), load_factor_, nodes_.weighted);
    std::vector<std::uint64_t> load(nodes_.size(), 0);
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      // Further tokens of a full server are skipped by the same test, so this visits the
      // next distinct servers clockwise.
      std::size_t t = ring_.successor(key_hash(keys[i]));
      for (std::size_t steps = 0;; ++steps, t = ring_.next(t)) {
        const std::uint32_t n = ring_.token(t).node;
        if (load[n] < caps[n]) {
          owners[i] = n;
          ++load[n];
          break;
        }
        // Caps sum to more than the key count, so some server has room before a full turn.
        if (steps > ring_.size()) throw std::logic_error("ring-bounded: no server has room");
      }
    }
  }
  std::size_t structure_bytes() const override { return ring_.bytes(); }
  bool uses_weights() const override { return true; }

 private:
  std::uint32_t vnodes_;
  double load_factor_;
  NodeList nodes_;
  HashRing ring_;
};

}  // namespace

std::unique_ptr<Placer> make_ring(std::uint32_t vnodes) {
  return std::make_unique<RingPlacer>(vnodes);
}
std::unique_ptr<Placer> make_ring_bounded(std::uint32_t vnodes, double load_factor) {
  return std::make_unique<RingBoundedPlacer>(vnodes, load_factor);
}

}  // namespace hrw::compare
