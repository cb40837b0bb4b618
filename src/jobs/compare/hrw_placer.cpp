// Rendezvous hashing through the project's own batch engine (hrw::place, SIMD, one thread
// so that its ns/key compares fairly with the single-threaded alternatives), plain and with
// bounded loads.
#include <algorithm>
#include <optional>
#include <stdexcept>
#include <unordered_map>

#include "compare/bounded_caps.hpp"
#include "compare/placer.hpp"
#include "hrw/balance.hpp"
#include "hrw/placement.hpp"

namespace hrw::compare {
namespace {

// The view hrw::place needs (sorted by id) and the way back to list indices.
struct HrwView {
  std::optional<ClusterView> view;
  std::vector<std::uint32_t> to_list;  // view index -> list index

  void build(const NodeList& nodes, bool use_weights, HashMode hash) {
    view.emplace(to_cluster_view(nodes, use_weights, hash));
    std::unordered_map<std::string_view, std::uint32_t> list_index;
    for (std::uint32_t i = 0; i < nodes.size(); ++i) list_index.emplace(nodes.ids[i], i);
    to_list.assign(view->size(), 0);
    for (std::uint32_t v = 0; v < view->size(); ++v) to_list[v] = list_index.at(view->node(v).id);
  }
};

PlaceOptions single_thread_simd(std::uint32_t replicas) {
  PlaceOptions options;
  options.replicas = replicas;
  options.threads = 1;
  options.engine = Engine::simd;
  return options;
}

class HrwPlacer final : public Placer {
 public:
  HrwPlacer(std::string name, std::optional<HashMode> hash, bool weighted)
      : name_(std::move(name)), hash_(hash), weighted_(weighted) {}
  std::string name() const override { return name_; }
  void build(const NodeList& nodes) override {
    hrw_.build(nodes, weighted_, hash_.value_or(nodes.hash));
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    Placement placement;
    place(*hrw_.view, keys, single_thread_simd(1), placement);
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = hrw_.to_list[placement.owner(i)];
  }
  std::size_t structure_bytes() const override { return 0; }  // scores are computed, not stored
  bool uses_weights() const override { return weighted_; }

 private:
  std::string name_;
  std::optional<HashMode> hash_;
  bool weighted_;
  HrwView hrw_;
};

// Keys in input order; a key whose first-ranked node is full goes to the next node of its
// ranking with room. The engine returns the top kDepth of each ranking in one SIMD pass;
// the rare key whose top kDepth are all full asks for its whole ranking.
class HrwBoundedPlacer final : public Placer {
 public:
  explicit HrwBoundedPlacer(double load_factor) : load_factor_(load_factor) {}
  std::string name() const override { return "hrw-bounded"; }
  void build(const NodeList& nodes) override {
    nodes_ = nodes;
    hrw_.build(nodes, nodes.weighted, nodes.hash);
  }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    const auto caps = bounded_caps(nodes_, keys.size(), load_factor_, nodes_.weighted);
    std::vector<std::uint64_t> load(nodes_.size(), 0);
    const auto n = static_cast<std::uint32_t>(nodes_.size());
    const std::uint32_t depth = std::min(kDepth, n);
    Placement top;
    place(*hrw_.view, keys, single_thread_simd(depth), top);
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::optional<std::uint32_t> chosen;
      for (std::uint32_t r = 0; r < depth && !chosen; ++r)
        if (const auto v = top.node(i, r); load[v] < caps[v]) chosen = v;
      if (!chosen) chosen = deeper_choice(keys[i], caps, load);
      ++load[*chosen];
      owners[i] = hrw_.to_list[*chosen];
    }
  }
  std::size_t structure_bytes() const override { return 0; }
  bool uses_weights() const override { return true; }

 private:
  static constexpr std::uint32_t kDepth = 8;

  std::uint32_t deeper_choice(std::string_view key, const std::vector<std::uint64_t>& caps,
                              const std::vector<std::uint64_t>& load) const {
    KeyBatch one;
    one.add(key);
    const auto n = static_cast<std::uint32_t>(nodes_.size());
    const Placement all = place(*hrw_.view, one, single_thread_simd(n));
    for (std::uint32_t r = 0; r < n; ++r)
      if (const auto v = all.node(0, r); load[v] < caps[v]) return v;
    // Caps sum to more than the key count (c > 1), so some node always has room.
    throw std::logic_error("hrw-bounded: no node has room");
  }

  double load_factor_;
  NodeList nodes_;
  HrwView hrw_;
};

// Contract §9: the view's balanced cuts for these keys (capacity floor(c x fair load), the
// same factor c as bounded loads: eps = c - 1), then every key placed by the cut rule. The
// outcome does not depend on key order; the time includes computing the cuts.
class HrwCutsPlacer final : public Placer {
 public:
  explicit HrwCutsPlacer(double load_factor) : load_factor_(load_factor) {}
  std::string name() const override { return "hrw-cuts"; }
  void build(const NodeList& nodes) override { hrw_.build(nodes, nodes.weighted, nodes.hash); }
  void assign(const KeyBatch& keys, std::vector<std::uint32_t>& owners) const override {
    BalanceOptions options;
    options.max_overload = load_factor_ - 1.0;
    options.threads = 1;
    const BalanceResult cuts =
        balance_cuts(*hrw_.view, keys, std::vector<std::uint64_t>(keys.size(), 1), options);
    const ClusterView cut(spec_with_cuts(*hrw_.view, cuts.cuts));
    Placement placement;
    place(cut, keys, single_thread_simd(1), placement);
    owners.resize(keys.size());
    for (std::size_t i = 0; i < keys.size(); ++i) owners[i] = hrw_.to_list[placement.owner(i)];
  }
  std::size_t structure_bytes() const override { return 0; }  // N cuts, in the view itself
  bool uses_weights() const override { return true; }

 private:
  double load_factor_;
  HrwView hrw_;
};

}  // namespace

std::unique_ptr<Placer> make_hrw_cuts(double load_factor) {
  return std::make_unique<HrwCutsPlacer>(load_factor);
}

std::unique_ptr<Placer> make_hrw(std::string name, std::optional<HashMode> hash, bool weighted) {
  return std::make_unique<HrwPlacer>(std::move(name), hash, weighted);
}
std::unique_ptr<Placer> make_hrw_bounded(double load_factor) {
  return std::make_unique<HrwBoundedPlacer>(load_factor);
}

}  // namespace hrw::compare
