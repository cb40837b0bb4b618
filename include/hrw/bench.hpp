// `hrw bench`: placement throughput of this machine, measured in process on generated keys
// and reported so that runs on different machines (x86, ARM) or builds (before, after) can
// be compared figure by figure. The JSON schema is documented in docs/bench.md.
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "hrw/progress.hpp"

namespace hrw {

struct BenchOptions {
  // Each figure is the median of `repetitions` timed repetitions of about `rep_seconds` each
  // (at least one call of the measured operation each).
  unsigned repetitions = 5;
  double rep_seconds = 0.15;
  // The timed repetitions of a whole run stay within this many seconds: on a CPU with many
  // targets rep_seconds shrinks to fit (checks, references and warm-ups come on top).
  double timed_seconds = 24.0;
  // Pairs (key, node) per call of a pair-scores figure; keys = pairs / N, at least 256.
  std::uint64_t pairs_per_call = 1u << 22;
  // Keys per call of the place and plan keys/s figures.
  std::uint64_t keys_per_call = 1u << 18;
  // Keys of every call checked against the scalar reference before it is timed.
  std::uint64_t checked_keys = 512;
  std::vector<std::uint32_t> node_counts = {10, 100, 1000};
  bool quick = false;  // recorded in the report; quick_bench_options() sets the rest
  // Test hook: one owner of the first checked SIMD result is changed before the check, so
  // that a test can prove a wrong kernel is refused (BenchMismatch).
  bool corrupt_first_check = false;
  ProgressCallback progress;  // keys placed so far; fraction = figures done (may be empty)
};

// The defaults of `hrw bench` (<= 30 s here) and of `hrw bench --quick` (<= 5 s).
BenchOptions default_bench_options();
BenchOptions quick_bench_options();

struct BenchFigure {
  std::string name;    // "pairs/AVX2/weighted/100", "keys/plan/all-threads", "pairbound"
  std::string unit;    // "pair-scores/s" or "keys/s"
  std::string detail;  // what ran: the target, the probe's instruction set and chains
  double median = 0, min = 0, max = 0;  // over the repetitions
  unsigned repetitions = 0;
  // (max - min) / median: the figure's spread.
  double spread() const { return median > 0 ? (max - min) / median : 0.0; }
};

struct BenchReport {
  static constexpr int kSchemaVersion = 1;
  int schema_version = kSchemaVersion;
  std::string hrw_version;
  std::string cpu;                   // the CPU model as the OS names it ("unknown" if it does not)
  std::vector<std::string> targets;  // the SIMD targets benchmarked, best first
  unsigned threads = 0;              // the threads of the all-threads figures
  bool quick = false;
  std::vector<BenchFigure> figures;
  const BenchFigure* find(const std::string& name) const;
};

// A SIMD result that differs from the scalar reference: the kernel is wrong, so its speed
// is not reported. Not an InputError: nothing the user gave is at fault.
class BenchMismatch : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Every runnable SIMD target (only the forced one when a target is forced), at 1 thread:
// pair-scores/s of place() at each node count, unweighted and weighted; the pair op-mix bound
// of the widest probe this CPU runs; keys/s of place() (100 nodes) and of a plan's placement
// step (PairPlacer, 100 -> 101 nodes), at 1 thread and at all threads. Throws BenchMismatch
// when a checked result differs from the reference.
BenchReport run_bench(const BenchOptions& options);

std::string bench_json(const BenchReport& report);
std::string bench_table(const BenchReport& report);

// A saved `hrw bench --format json` run, parsed strictly: InputError "FILE: ..." naming the
// field for a missing or mistyped field, an unknown schema version, bad JSON or an
// unreadable file. `text` is the file's content, `file` its name for messages.
BenchReport parse_bench_json(const std::string& text, const std::string& file);
BenchReport load_bench_json(const std::string& file);

// Each figure of `now` against the same-named figure of `base` (now.median / base.median),
// in now's order; figures only one side has are listed by name.
struct BenchRatio {
  std::string name, unit;
  double now = 0, base = 0, ratio = 0;
};
struct BenchComparison {
  std::string base_file;
  std::string base_cpu;
  std::vector<BenchRatio> ratios;
  std::vector<std::string> only_now;   // in this run, not in the saved one
  std::vector<std::string> only_base;  // in the saved run, not in this one
  // In both, in other units ("name: unit here, unit saved"): no ratio means anything then.
  std::vector<std::string> other_unit;
};
BenchComparison compare_bench(const BenchReport& now, const BenchReport& base, const std::string& base_file);
std::string comparison_table(const BenchComparison& comparison);
// The report's JSON with a "comparison" member added.
std::string bench_json(const BenchReport& report, const BenchComparison& comparison);

}  // namespace hrw
