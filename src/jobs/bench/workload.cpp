#include "bench/workload.hpp"

#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <tuple>

namespace hrw::bench {
namespace {

std::uint64_t splitmix64(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::mutex cache_mutex;

}  // namespace

const char* to_string(IdSet ids) { return ids == IdSet::prefix ? "prefix" : "noprefix"; }

std::vector<std::string> node_ids(std::uint32_t n, IdSet ids) {
  std::vector<std::string> out;
  out.reserve(n);
  if (ids == IdSet::prefix) {
    // Width 3 covers node-000 .. node-999, so every id has the same 8-byte length.
    const int width = n <= 1000 ? 3 : 4;
    char buf[32];
    for (std::uint32_t i = 0; i < n; ++i) {
      std::snprintf(buf, sizeof buf, "node-%0*u", width, i);
      out.emplace_back(buf);
    }
    return out;
  }
  static constexpr char kAlphabet[] = "0123456789abcdefghijklmnopqrstuvwxyz";
  std::uint64_t state = 0x5EED0000ull + n;
  std::set<std::string> seen;
  while (out.size() < n) {
    std::uint64_t x = splitmix64(state);
    std::string id(8, '0');
    for (char& c : id) {
      c = kAlphabet[x % 36];
      x /= 36;
    }
    if (seen.insert(id).second) out.push_back(std::move(id));
  }
  return out;
}

std::string zone_of(std::uint32_t i) {
  std::string zone = "z0";
  zone[1] = static_cast<char>('0' + i % 4);
  return zone;
}

double weight_of(std::uint32_t i) { return 1.0 + 0.25 * (i % 5); }

double fine_weight_of(std::uint32_t i, std::uint32_t n) {
  return 1.0 + static_cast<double>(i) / static_cast<double>(n);
}

const ClusterView& view(std::uint32_t n, IdSet ids, bool weighted, HashMode hash, bool fine) {
  using Key = std::tuple<std::uint32_t, int, bool, int, bool>;
  static std::map<Key, std::unique_ptr<ClusterView>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto& slot = cache[Key{n, static_cast<int>(ids), weighted, static_cast<int>(hash), fine}];
  if (!slot) {
    ClusterSpec spec;
    spec.source = "bench";
    spec.hash = hash;
    const std::vector<std::string> id_list = node_ids(n, ids);
    for (std::uint32_t i = 0; i < n; ++i) {
      NodeSpec node;
      node.id = id_list[i];
      if (weighted) node.weight = fine ? fine_weight_of(i, n) : weight_of(i);
      node.labels.emplace_back("zone", zone_of(i));
      spec.nodes.push_back(std::move(node));
    }
    slot = std::make_unique<ClusterView>(std::move(spec));
  }
  return *slot;
}

const KeyBatch& keys(std::size_t count) {
  static std::map<std::size_t, std::unique_ptr<KeyBatch>> cache;
  std::lock_guard<std::mutex> lock(cache_mutex);
  auto& slot = cache[count];
  if (!slot) {
    slot = std::make_unique<KeyBatch>();
    slot->reserve(count, count * 16);
    std::uint64_t state = 0x6B657973ull;  // "keys"
    char buf[17];
    for (std::size_t i = 0; i < count; ++i) {
      std::snprintf(buf, sizeof buf, "%016llx",
                    static_cast<unsigned long long>(splitmix64(state)));
      slot->add(std::string_view(buf, 16));
    }
  }
  return *slot;
}

}  // namespace hrw::bench
