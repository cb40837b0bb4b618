// The experiment: every scheme is built on the "from" view, moved to the "to" view the way
// it would be in production, and measured on the same keys.
#include <time.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <unordered_map>

#include "compare/load_stats.hpp"
#include "compare/placer.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {

double ideal_moved_fraction(const NodeList& from, const NodeList& to) {
  auto shares = [](const NodeList& list) {
    IdShares out;
    const std::vector<double> shares = list.shares();
    for (std::size_t i = 0; i < list.size(); ++i) out.emplace_back(list.ids[i], shares[i]);
    return out;
  };
  return total_variation_distance(shares(from), shares(to));
}

namespace {

std::vector<std::unique_ptr<Placer>> all_placers(const NodeList& from, const NodeList& to,
                                                 const Options& o) {
  std::vector<std::unique_ptr<Placer>> placers;
  placers.push_back(make_modulo());
  placers.push_back(make_ring(o.vnodes));
  placers.push_back(make_jump());
  placers.push_back(make_maglev(o.maglev_size));
  placers.push_back(make_slots());
  placers.push_back(make_hrw("hrw-fnv1a", HashMode::fnv1a, false));
  placers.push_back(make_hrw("hrw-fnv1a-fmix", HashMode::fnv1a_fmix, false));
  if (from.weighted || to.weighted) placers.push_back(make_hrw("hrw-weighted", std::nullopt, true));
  if (from.hierarchy || to.hierarchy) placers.push_back(make_hrw_tree());
  placers.push_back(make_hrw_bounded(o.load_factor));
  placers.push_back(make_hrw_cuts(o.load_factor));
  placers.push_back(make_ring_bounded(o.vnodes, o.load_factor));
  return placers;
}

// CPU time of the calling thread: the machine may be shared (CI, parallel builds), and
// wall-clock time would charge a scheme for the time it spent descheduled.
double thread_cpu_ns() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// Best of a few runs: lookups are deterministic, so the fastest run is the least disturbed.
constexpr int kTimingRuns = 3;

// Fraction of keys whose node (by id) differs between the two assignments.
double moved_fraction(const std::vector<std::uint32_t>& before, const NodeList& from,
                      const std::vector<std::uint32_t>& after, const NodeList& to) {
  constexpr std::uint32_t kGone = 0xFFFFFFFFu;
  std::unordered_map<std::string_view, std::uint32_t> to_index;
  for (std::uint32_t i = 0; i < to.size(); ++i) to_index.emplace(to.ids[i], i);
  std::vector<std::uint32_t> same_node(from.size(), kGone);  // from index -> to index
  for (std::uint32_t i = 0; i < from.size(); ++i)
    if (auto it = to_index.find(from.ids[i]); it != to_index.end()) same_node[i] = it->second;
  std::size_t moved = 0;
  for (std::size_t k = 0; k < before.size(); ++k) moved += same_node[before[k]] != after[k];
  return static_cast<double>(moved) / static_cast<double>(before.size());
}

AlgorithmResult measure(Placer& placer, const NodeList& from, const NodeList& to,
                        const KeyBatch& keys) {
  AlgorithmResult result;
  result.name = placer.name();
  std::vector<std::uint32_t> before, after;
  placer.build(from);
  placer.assign(keys, before);
  result.note = placer.change_to(to);
  double best = 0;
  for (int run = 0; run < kTimingRuns; ++run) {
    const double start = thread_cpu_ns();
    placer.assign(keys, after);
    const double elapsed = thread_cpu_ns() - start;
    best = run == 0 ? elapsed : std::min(best, elapsed);
  }
  result.ns_per_key = best / static_cast<double>(keys.size());
  result.bytes_per_node =
      static_cast<double>(placer.structure_bytes()) / static_cast<double>(to.size());
  result.before = load_stats(before, from);
  result.after = load_stats(after, to);
  if (result.note.empty()) result.moved_fraction = moved_fraction(before, from, after, to);
  if ((from.weighted || to.weighted) && !placer.uses_weights())
    result.note += result.note.empty() ? "ignores weights" : "; ignores weights";
  return result;
}

}  // namespace

Report run(const NodeList& from, const NodeList& to, const KeyBatch& keys,
           const Options& options) {
  validate(options, std::max(from.size(), to.size()));
  if (keys.empty()) throw InputError("no keys to compare (the key input is empty)");
  Report report;
  report.keys = keys.size();
  report.from = from;
  report.to = to;
  report.options = options;
  report.ideal_fraction = ideal_moved_fraction(from, to);
  for (auto& placer : all_placers(from, to, options))
    report.algorithms.push_back(measure(*placer, from, to, keys));
  return report;
}

}  // namespace hrw::compare
