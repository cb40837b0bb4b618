// hrw bench's measurements (docs/bench.md): every figure timed in process on the workloads
// of hrw_bench (bench/workload.hpp), each SIMD result checked against the scalar reference
// on its first keys before it is timed.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <tbb/global_control.h>

#include "bench/op_bounds.hpp"
#include "bench/workload.hpp"
#include "hrw/bench.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement.hpp"
#include "hrw/targets.hpp"
#include "hrw/version.hpp"

namespace hrw {

namespace {

using Clock = std::chrono::steady_clock;

// The plan figure's views: the 100-node view and the same with one node added, as in
// hrw_bench's plan/<T>/fmix/<w>/R1/t1/prefix/100to101.
constexpr std::uint32_t kPlanFrom = 100, kPlanTo = 101;
// A call of a pair-scores figure places at least this many keys (N = 1000 in --quick).
constexpr std::uint64_t kMinKeysPerCall = 256;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// The CPU model as /proc/cpuinfo names it (x86 "model name"; aarch64 kernels give only the
// implementer and part numbers), else "unknown".
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, implementer, part;
  auto value = [&] {
    const std::size_t colon = line.find(':');
    std::string v = colon == std::string::npos ? std::string() : line.substr(colon + 1);
    v.erase(0, v.find_first_not_of(" \t"));
    return v;
  };
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) return value();
    if (implementer.empty() && line.rfind("CPU implementer", 0) == 0) implementer = value();
    if (part.empty() && line.rfind("CPU part", 0) == 0) part = value();
  }
  if (!implementer.empty()) return fmt::format("CPU implementer {} part {}", implementer, part);
  return "unknown";
}

std::vector<SimdTarget> benchmarked_targets() {
  // A target forced by the caller (hrw --target X bench) is the only one measured, as verify does.
  const std::int64_t forced = forced_target();
  std::vector<SimdTarget> targets = runnable_targets();
  if (forced != 0) std::erase_if(targets, [&](const SimdTarget& t) { return t.bits != forced; });
  return targets;
}

class Bench {
 public:
  Bench(const BenchOptions& options, BenchReport& report, std::size_t figures)
      : opt_(options), report_(report), total_(figures), corrupt_pending_(options.corrupt_first_check) {}

  // The first `checked_keys` owners of `got` (a placement of bench::keys(...) in `view`)
  // against the reference's; BenchMismatch naming the figure, the key and both owners.
  void check(const std::string& figure, const ClusterView& view, const Placement& got) {
    const std::uint64_t n = std::min<std::uint64_t>(opt_.checked_keys, got.size());
    const Placement& want = reference(view, n);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t owner = got.owner(i);
      if (corrupt_pending_) {  // the test hook: a wrong owner, as a broken kernel would give
        owner = (owner + 1) % view.size();
        corrupt_pending_ = false;
      }
      if (owner == want.owner(i)) continue;
      const KeyBatch& keys = bench::keys(n);
      throw BenchMismatch(fmt::format(
          "bench {}: key {} is placed on {} by {}, on {} by the scalar reference: a wrong kernel is not benchmarked",
          figure, quote_for_message(keys[i]), quote_for_message(view.node(owner).id), active_target().name,
          quote_for_message(view.node(want.owner(i)).id)));
    }
  }

  // Repetitions of `call` (worth `items` of the unit and `keys` keys placed), each at least
  // rep_seconds and one call; the median and range of their rates.
  template <typename Call>
  void time(std::string name, std::string unit, std::string detail, double items, std::uint64_t keys, Call&& call) {
    std::vector<double> rates;
    for (unsigned r = 0; r < std::max(1u, opt_.repetitions); ++r) {
      report_progress(name);
      std::uint64_t calls = 0;
      const Clock::time_point t0 = Clock::now();
      double seconds = 0;
      do {
        call();
        ++calls;
        seconds = seconds_since(t0);
      } while (seconds < opt_.rep_seconds);
      rates.push_back(items * static_cast<double>(calls) / seconds);
      keys_placed_ += keys * calls;
    }
    std::sort(rates.begin(), rates.end());
    const std::size_t m = rates.size();
    BenchFigure f;
    f.name = std::move(name);
    f.unit = std::move(unit);
    f.detail = std::move(detail);
    f.median = m % 2 ? rates[m / 2] : (rates[m / 2 - 1] + rates[m / 2]) / 2;
    f.min = rates.front();
    f.max = rates.back();
    f.repetitions = static_cast<unsigned>(m);
    report_.figures.push_back(std::move(f));
    ++done_;
    report_progress(report_.figures.back().name);
  }

 private:
  void report_progress(const std::string& name) {
    if (opt_.progress) opt_.progress(ProgressReport(keys_placed_, done_, total_, "bench " + name));
  }

  // The reference placement of the first n generated keys, once per view and count.
  const Placement& reference(const ClusterView& view, std::uint64_t n) {
    auto& slot = references_[{&view, n}];
    if (slot.nodes.empty()) {
      PlaceOptions ref;
      ref.engine = Engine::reference;
      ref.threads = 1;
      slot = place(view, bench::keys(n), ref);
    }
    return slot;
  }

  const BenchOptions& opt_;
  BenchReport& report_;
  std::size_t total_, done_ = 0;
  std::uint64_t keys_placed_ = 0;
  bool corrupt_pending_;
  std::map<std::pair<const ClusterView*, std::uint64_t>, Placement> references_;
};

const ClusterView& bench_view(std::uint32_t n, bool weighted) {
  return bench::view(n, bench::IdSet::prefix, weighted, HashMode::fnv1a_fmix);
}

std::string threads_text(unsigned threads) { return threads == 1 ? "1 thread" : fmt::format("{} threads", threads); }

}  // namespace

BenchOptions default_bench_options() { return {}; }

BenchOptions quick_bench_options() {
  BenchOptions o;
  o.repetitions = 3;
  o.rep_seconds = 0.03;
  o.timed_seconds = 4.0;
  o.pairs_per_call = 1u << 19;
  o.keys_per_call = 1u << 15;
  o.quick = true;
  return o;
}

const BenchFigure* BenchReport::find(const std::string& name) const {
  for (const BenchFigure& f : figures)
    if (f.name == name) return &f;
  return nullptr;
}

BenchReport run_bench(const BenchOptions& requested) {
  BenchReport report;
  report.hrw_version = HRW_VERSION;
  report.cpu = cpu_model();
  report.quick = requested.quick;
  report.threads = static_cast<unsigned>(
      std::max<std::size_t>(1, tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism)));
  const std::vector<SimdTarget> targets = benchmarked_targets();
  for (const SimdTarget& t : targets) report.targets.push_back(t.name);
  const std::vector<bench::ProbeIsa> probes = bench::runnable_probe_isas();
  const std::size_t figures = targets.size() * requested.node_counts.size() * 2 + (probes.empty() ? 0 : 1) + 4;
  BenchOptions options = requested;
  options.rep_seconds = std::min(
      requested.rep_seconds,
      requested.timed_seconds / static_cast<double>(figures * std::max(1u, requested.repetitions)));
  Bench bench(options, report, figures);

  // Pair-scores/s of every target, 1 thread, as hrw_bench's place/<T>/fmix/<w>/R1/t1/prefix/<N>.
  for (const SimdTarget& t : targets) {
    const ScopedTarget on(t.bits);
    if (active_target().bits != t.bits)
      throw std::runtime_error("bench: forcing " + t.name + " did not take: active is " + active_target().name);
    for (const bool weighted : {false, true})
      for (const std::uint32_t n : options.node_counts) {
        const ClusterView& view = bench_view(n, weighted);
        const KeyBatch& keys = bench::keys(std::max<std::uint64_t>(kMinKeysPerCall, options.pairs_per_call / n));
        PlaceOptions opt;
        opt.threads = 1;
        const BatchPlacer placer(view, opt);
        const std::string name = fmt::format("pairs/{}/{}/{}", t.name, weighted ? "weighted" : "unweighted", n);
        Placement out;
        placer.place(keys, out);  // warm-up, and the result checked
        bench.check(name, view, out);
        bench.time(name, "pair-scores/s", fmt::format("{}, 1 thread, {} keys per call", t.name, keys.size()),
                   static_cast<double>(keys.size()) * n, keys.size(), [&] { placer.place(keys, out); });
      }
  }

  // The bare op mix of one pair on the widest vectors this CPU has, its best chain count.
  if (!probes.empty()) {
    const bench::ProbeIsa isa = probes.front();
    int best_chains = bench::kProbeChains[0];
    double best_rate = 0;
    for (const int chains : bench::kProbeChains) {  // a short pass picks the chain count
      const Clock::time_point t0 = Clock::now();
      std::uint64_t calls = 0;
      do {
        bench::run_pair_probe(isa, chains, 1, 7);
        ++calls;
      } while (seconds_since(t0) < options.rep_seconds / 4);
      const double rate = static_cast<double>(calls * bench::probe_items_per_call(isa, chains)) / seconds_since(t0);
      if (rate > best_rate) best_rate = rate, best_chains = chains;
    }
    std::uint32_t sink = 0;
    bench.time("pairbound", "pair-scores/s",
               fmt::format("{}, {} chains, 1 thread: the op mix of one fnv1a-fmix pair, nothing else",
                           bench::probe_isa_name(isa), best_chains),
               static_cast<double>(bench::probe_items_per_call(isa, best_chains)), 0,
               [&] { sink += bench::run_pair_probe(isa, best_chains, 1, sink); });
  }

  // Keys/s of place (100 nodes) and of a plan's placement step (100 -> 101), the best target
  // (or the forced one), 1 thread and all threads.
  const ClusterView& from = bench_view(kPlanFrom, false);
  const ClusterView& to = bench_view(kPlanTo, false);
  const KeyBatch& keys = bench::keys(std::max<std::uint64_t>(kMinKeysPerCall, options.keys_per_call));
  for (const unsigned threads : {1u, report.threads}) {
    const std::string suffix = threads == 1 ? "1-thread" : "all-threads";
    const std::string detail = fmt::format("{}, {}, {} keys per call", active_target().name, threads_text(threads),
                                           keys.size());
    PlaceOptions opt;
    opt.threads = threads;
    {
      const BatchPlacer placer(from, opt);
      Placement out;
      placer.place(keys, out);
      bench.check("keys/place/" + suffix, from, out);
      bench.time("keys/place/" + suffix, "keys/s", detail + ", 100 nodes", static_cast<double>(keys.size()),
                 keys.size(), [&] { placer.place(keys, out); });
    }
    {
      const PairPlacer pair(from, to, opt);
      Placement a, b;
      pair.place(keys, a, b);
      bench.check("keys/plan/" + suffix, from, a);
      bench.check("keys/plan/" + suffix, to, b);
      bench.time("keys/plan/" + suffix, "keys/s",
                 detail + (pair.fused() ? ", 100 -> 101 nodes, fused" : ", 100 -> 101 nodes, placed twice"),
                 static_cast<double>(keys.size()), keys.size(), [&] { pair.place(keys, a, b); });
    }
  }
  return report;
}

}  // namespace hrw
