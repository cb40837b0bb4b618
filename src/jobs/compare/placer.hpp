// One interface for every placement scheme `hrw compare` measures. A placer is built for
// one view, assigns keys, and can be moved to the next view the way the scheme would be in
// production (for most schemes that is simply a fresh build; Redis-style slots hand over
// only the slots that must move).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hrw/compare.hpp"
#include "hrw/key_batch.hpp"

namespace hrw::compare {

class Placer {
 public:
  virtual ~Placer() = default;
  virtual std::string name() const = 0;
  // Builds the lookup structure for `nodes` from scratch.
  virtual void build(const NodeList& nodes) = 0;
  // Moves the built layout to `nodes`. Returns why the scheme cannot express this change
  // (the layout is still built for `nodes`, so its loads can be measured), or "".
  virtual std::string change_to(const NodeList& nodes) {
    build(nodes);
    return {};
  }
  // owners[i] = list index (into the last built NodeList) of key i's node.
  virtual void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const = 0;
  // Bytes of the lookup structure, beyond the node list itself.
  virtual std::size_t structure_bytes() const = 0;
  // False for schemes that give every node the same share whatever the weights.
  virtual bool uses_weights() const { return false; }
};

std::unique_ptr<Placer> make_modulo();
std::unique_ptr<Placer> make_ring(std::uint32_t vnodes);
std::unique_ptr<Placer> make_jump();
std::unique_ptr<Placer> make_maglev(std::uint32_t table_size);
std::unique_ptr<Placer> make_slots();
// Rendezvous through hrw::place (SIMD engine, one thread). `weighted` ranks by the views'
// weights; otherwise weights are ignored. `hash` nullopt: each view's own hash mode.
std::unique_ptr<Placer> make_hrw(std::string name, std::optional<HashMode> hash, bool weighted);
// Hierarchical rendezvous (contract §6) with each view's own hierarchy, weights, seed and
// hash mode (a view without a hierarchy is placed flat), SIMD engine, one thread.
std::unique_ptr<Placer> make_hrw_tree();
// Bounded loads (Mirrokni, Thorup, Zadimoghaddam 2018): cap = ceil(c x fair load); keys
// in input order; an overflowing key goes to the next candidate.
std::unique_ptr<Placer> make_hrw_bounded(double load_factor);
// Contract §9: balanced cuts with eps = load_factor - 1, then the cut rule (order-free).
std::unique_ptr<Placer> make_hrw_cuts(double load_factor);
std::unique_ptr<Placer> make_ring_bounded(std::uint32_t vnodes, double load_factor);

}  // namespace hrw::compare
