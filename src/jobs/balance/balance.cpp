// Contract §9 balanced cuts by passes (balance.hpp): the keys are read once into a spill
// file; every pass places them with the current cuts, and each node whose keys the §9 rule
// would not all hold raises its cut to the r of the last key the rule lets it hold. The
// node's choice is monotone (more proposers never lower its line), so the fixed point is
// deferred acceptance's outcome, reached from below without per-key state.
#include "hrw/balance.hpp"
#include "hrw/view_json.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "spill_file.hpp"

namespace hrw {

namespace {

constexpr std::size_t kPassChunk = std::size_t{1} << 16;
constexpr unsigned kBucketBits = 12;  // histogram buckets per node: the top bits of r
constexpr std::size_t kBuckets = std::size_t{1} << kBucketBits;
// Few keys on many nodes (keys × nodes up to this, about 200 MB of rankings at most):
// deferred acceptance itself, in memory.
constexpr std::uint64_t kInMemoryPairs = std::uint64_t{1} << 23;

// The spilled keys: (u32 length, u64 load, bytes) records, read back chunk by chunk.
class SpilledKeys {
 public:
  explicit SpilledKeys(const std::string& dir) : file_(dir) {}
  void add(std::string_view key, std::uint64_t load) {
    const auto len = static_cast<std::uint32_t>(key.size());
    file_.write(&len, sizeof len);
    file_.write(&load, sizeof load);
    file_.write(key.data(), key.size());
  }
  void rewind() { file_.rewind(); }
  bool next(KeyBatch& keys, std::vector<std::uint64_t>& loads, std::size_t max) {
    keys.clear();
    loads.clear();
    std::uint32_t len;
    std::uint64_t load;
    while (keys.size() < max && file_.read(&len, sizeof len)) {
      file_.read(&load, sizeof load);
      buf_.resize(len);
      if (len) file_.read(buf_.data(), len);
      keys.add(buf_);
      loads.push_back(load);
    }
    return keys.size() > 0;
  }

 private:
  io::SpillFile file_;
  std::string buf_;
};

// Keys already in memory, served in chunks like the spill file.
class MemoryKeys {
 public:
  MemoryKeys(const KeyBatch& keys, const std::vector<std::uint64_t>& loads) : keys_(keys), loads_(loads) {}
  void rewind() { pos_ = 0; }
  bool next(KeyBatch& keys, std::vector<std::uint64_t>& loads, std::size_t max) {
    keys.clear();
    loads.clear();
    for (; pos_ < keys_.size() && keys.size() < max; ++pos_) {
      keys.add(keys_[pos_]);
      loads.push_back(loads_[pos_]);
    }
    return keys.size() > 0;
  }

 private:
  const KeyBatch& keys_;
  const std::vector<std::uint64_t>& loads_;
  std::size_t pos_ = 0;
};

ClusterView view_with(const ClusterView& view, const std::vector<std::uint32_t>& cuts) {
  return ClusterView(spec_with_cuts(view, cuts));
}

std::uint32_t r_at(const ClusterView& view, std::string_view key, std::uint32_t node) {
  const std::uint32_t h = fnv1a32_continue(fnv1a32_continue(view.seed_state(), key), view.node(node).id);
  return view.hash() == HashMode::fnv1a_fmix ? fmix32(h) : h;
}

struct Exact {
  std::uint32_t r;
  std::string key;
  std::uint64_t load;
};

}  // namespace

ClusterSpec spec_with_cuts(const ClusterView& view, const std::vector<std::uint32_t>& cuts) {
  ClusterSpec spec = spec_of(view);  // view_json.hpp: every field (rule, labels...) kept
  for (std::uint32_t i = 0; i < view.size(); ++i) spec.nodes[i].cut = cuts[i];
  return spec;
}

namespace {

void check_request(const ClusterView& view, const BalanceOptions& options) {
  if (view.hierarchy())
    throw InputError(fmt::format("{}: balanced cuts are defined for flat views only (contract "
                                 "section 9); this view has a hierarchy",
                                 view.source()));
  // §9 defines balanced cuts for R = 1: cuts computed so would leave a view that places R > 1
  // replicas off its targets while the report claimed them balanced.
  if (view.rule() && view.rule()->replicas > 1)
    throw InputError(fmt::format("{}: balanced cuts are defined for one replica (contract section 9); the "
                                 "view's rule is {}",
                                 view.source(), describe(*view.rule())));
  if (!std::isfinite(options.max_overload) || options.max_overload < 0)
    throw InputError(fmt::format("maximum overload must be a finite number >= 0, got {}",
                                 options.max_overload));
}

template <class Keys>
void run_passes(const ClusterView& view, Keys& spill, const BalanceOptions& options, BalanceResult& out);

}  // namespace

BalanceResult balance_cuts(const ClusterView& view, KeySource& source, const BalanceOptions& options) {
  check_request(view, options);
  if (options.by == LoadBy::bytes && !source.has_bytes())
    throw InputError(fmt::format("{}: balancing by bytes needs a \"bytes\" column", source.name()));
  if (options.by == LoadBy::requests && !source.has_requests())
    throw InputError(fmt::format("{}: balancing by requests needs a \"requests\" column", source.name()));
  BalanceResult out;
  SpilledKeys spill(options.spill_dir.empty() ? std::filesystem::temp_directory_path().string()
                                              : options.spill_dir);
  KeyChunk chunk;
  while (source.next(chunk, kPassChunk))
    for (std::size_t i = 0; i < chunk.size(); ++i) {
      const std::uint64_t load = options.by == LoadBy::keys    ? 1
                                 : options.by == LoadBy::bytes ? chunk.bytes_of(i)
                                                               : chunk.requests_of(i);
      if (out.total_load + load < out.total_load)
        throw InputError(fmt::format("{}: the total load is larger than 2^64 - 1", source.name()));
      out.total_load += load;
      ++out.keys;
      spill.add(chunk.keys[i], load);
    }
  run_passes(view, spill, options, out);
  return out;
}

BalanceResult balance_cuts(const ClusterView& view, const KeyBatch& keys,
                           const std::vector<std::uint64_t>& loads, const BalanceOptions& options) {
  check_request(view, options);
  BalanceResult out;
  for (std::uint64_t load : loads) {
    if (out.total_load + load < out.total_load)
      throw InputError("the total load is larger than 2^64 - 1");
    out.total_load += load;
  }
  out.keys = keys.size();
  MemoryKeys memory(keys, loads);
  run_passes(view, memory, options, out);
  return out;
}

namespace {

// Contract §9's deferred acceptance on every key at once (reference::balanced_cuts, the
// rule's one scalar home): its cuts are the passes' fixed point.
template <class Keys>
std::vector<std::uint32_t> accepted_cuts(const ClusterView& plain, Keys& spill, double eps) {
  std::vector<std::string> all;
  std::vector<std::uint64_t> all_loads, loads;
  KeyBatch keys;
  spill.rewind();
  while (spill.next(keys, loads, kPassChunk)) {
    for (std::size_t i = 0; i < keys.size(); ++i) all.emplace_back(keys[i]);
    all_loads.insert(all_loads.end(), loads.begin(), loads.end());
  }
  return reference::balanced_cuts(plain, all, all_loads, eps).cuts;
}

template <class Keys>
void run_passes(const ClusterView& view, Keys& spill, const BalanceOptions& options, BalanceResult& out) {
  const std::size_t n = view.size();
  out.capacity = reference::capacities(view, out.total_load, options.max_overload);
  out.cuts.assign(n, 0);
  const ClusterView plain = view_with(view, out.cuts);  // the view's own cuts are not used

  PlaceOptions place;
  place.threads = options.threads;
  KeyBatch keys;
  std::vector<std::uint64_t> loads;
  std::vector<std::uint64_t> hist(n * kBuckets), count(n * kBuckets);
  Placement pa, pb;
  for (bool first = true;; first = false) {
    // One stream: place with the current cuts (and plainly, fused), histogram of r per node.
    const ClusterView cut = view_with(view, out.cuts);
    const PairPlacer placer(plain, cut, place);
    std::fill(hist.begin(), hist.end(), 0);
    std::fill(count.begin(), count.end(), 0);
    std::vector<std::uint64_t> load(n, 0);
    std::uint64_t displaced = 0, overflow = 0;
    spill.rewind();
    while (spill.next(keys, loads, kPassChunk)) {
      placer.place(keys, pa, pb);
      overflow += pb.overflow;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        const std::uint32_t o = pb.owner(i);
        const std::size_t b = o * kBuckets + (r_at(view, keys[i], o) >> (32 - kBucketBits));
        hist[b] += loads[i];
        count[b] += 1;
        load[o] += loads[i];
        displaced += o != pa.owner(i);
      }
    }
    ++out.passes;
    if (first) {
      out.load_before.assign(n, 0);
      for (std::uint32_t i = 0; i < n; ++i) out.load_before[i] = load[i];
    }
    out.load_after = load;
    out.displaced = displaced;
    out.overflow = overflow;
    // A rejected key moves one node down its ranking per pass, so with few keys on many
    // nodes the passes would grow with N: there the cuts come from deferred acceptance in
    // memory, and the passes only confirm them (one more stream, and its refinement).
    if (first && out.keys * n <= kInMemoryPairs) {
      out.cuts = accepted_cuts(plain, spill, options.max_overload);
      ++out.passes;
      continue;
    }
    // Per node: the bucket where the held keys' running load first reaches the capacity.
    std::vector<std::int64_t> crossing(n, -1);
    std::vector<std::uint64_t> above(n, 0);  // load of the keys in higher buckets
    std::vector<bool> below(n, false);       // keys in lower buckets (all rejected)
    std::vector<std::uint32_t> next_cut = out.cuts;
    bool refine = false;
    for (std::uint32_t i = 0; i < n; ++i) {
      const std::uint64_t cap = out.capacity[i];
      const std::uint64_t* h = &hist[i * kBuckets];
      const std::uint64_t* c = &count[i * kBuckets];
      if (cap == 0) {  // holds nothing: the project's rule for an empty node that rejects
        if (load[i] > 0 || std::any_of(c, c + kBuckets, [](std::uint64_t x) { return x > 0; }))
          next_cut[i] = std::numeric_limits<std::uint32_t>::max();
        continue;
      }
      std::uint64_t sum = 0;
      for (std::size_t b = kBuckets; b-- > 0;) {
        if (c[b] == 0) continue;
        if (crossing[i] >= 0) {
          below[i] = true;
          break;
        }
        if (sum + h[b] >= cap) {
          crossing[i] = static_cast<std::int64_t>(b);
          above[i] = sum;
          refine = true;
        }
        sum += h[b];
      }
    }
    if (refine) {
      // Second stream: the exact keys of each node's crossing bucket.
      std::vector<std::vector<Exact>> exact(n);
      spill.rewind();
      while (spill.next(keys, loads, kPassChunk)) {
        placer.place(keys, pa, pb);
        for (std::size_t i = 0; i < keys.size(); ++i) {
          const std::uint32_t o = pb.owner(i);
          if (crossing[o] < 0) continue;
          const std::uint32_t r = r_at(view, keys[i], o);
          if (static_cast<std::int64_t>(r >> (32 - kBucketBits)) != crossing[o]) continue;
          exact[o].push_back({r, std::string(keys[i]), loads[i]});
        }
      }
      ++out.passes;
      for (std::uint32_t i = 0; i < n; ++i) {
        if (crossing[i] < 0) continue;
        std::vector<Exact>& e = exact[i];
        std::sort(e.begin(), e.end(), [](const Exact& a, const Exact& b) {
          return a.r != b.r ? a.r > b.r : id_less(a.key, b.key);
        });
        // Hold while the load before the key is below capacity (the first key of the
        // bucket always is: `above` < capacity).
        std::uint64_t sum = above[i];
        std::size_t held = 0;
        while (held < e.size() && sum < out.capacity[i]) sum += e[held++].load;
        const bool rejects = held < e.size() || below[i];
        if (rejects) next_cut[i] = std::max(next_cut[i], e[held - 1].r);
      }
    }
    if (next_cut == out.cuts) break;
    out.cuts = next_cut;
  }
}

}  // namespace

}  // namespace hrw
