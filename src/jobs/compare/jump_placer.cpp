// Jump hash over the node list: bucket i is the i-th node. Jump only grows or shrinks at
// the end (buckets are numbered), so a change that is not "append or drop trailing nodes"
// cannot be expressed without renumbering, which would move keys for no reason.
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "compare/jump_hash.hpp"
#include "compare/key_hash.hpp"
#include "compare/placer.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {
namespace {

// One list is a prefix of the other (same ids at the same positions).
bool is_prefix_change(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  const std::size_t n = std::min(a.size(), b.size());
  return std::equal(a.begin(), a.begin() + n, b.begin());
}

class JumpPlacer final : public Placer {
 public:
  std::string name() const override { return "jump"; }
  void build(const NodeList& nodes) override {
    if (nodes.size() > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
      throw InputError("jump: too many nodes");
    ids_ = nodes.ids;
  }
  std::string change_to(const NodeList& nodes) override {
    const bool ok = is_prefix_change(ids_, nodes.ids);
    build(nodes);
    if (ok) return {};
    return "cannot express: jump hash only adds or removes buckets at the end of the list";
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    owners.resize(keys.size());
    const auto n = static_cast<std::int32_t>(ids_.size());
    for (std::size_t i = 0; i < keys.size(); ++i)
      owners[i] = static_cast<std::uint32_t>(jump_consistent_hash(key_hash(keys[i]), n));
  }
  std::size_t structure_bytes() const override { return 0; }

 private:
  std::vector<std::string> ids_;
};

}  // namespace

std::unique_ptr<Placer> make_jump() { return std::make_unique<JumpPlacer>(); }

}  // namespace hrw::compare
