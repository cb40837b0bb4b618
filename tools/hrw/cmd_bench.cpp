// hrw bench: placement throughput of this machine (the library's run_bench, docs/bench.md),
// printed as a table or JSON, optionally against a saved JSON run.
#include <memory>
#include <optional>

#include <fmt/core.h>

#include "hrw/atomic_file.hpp"
#include "hrw/bench.hpp"
#include "hrw/commands.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/progress_line.hpp"

namespace hrw::cli {

namespace {

struct BenchArgs {
  bool quick = false;
  std::string format = "table";
  std::string out;
  std::string compare;
  bool corrupt_first_check = false;
};

}  // namespace

Runner add_bench(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "bench", "Measure placement throughput here: pair-scores/s per SIMD target, keys/s of place and plan");
  auto a = std::make_shared<BenchArgs>();
  sub->add_flag("--quick", a->quick, "A short run (about 5 s instead of 30 s): fewer, shorter repetitions");
  sub->add_option("--format", a->format, "table (default) or json (docs/bench.md)")
      ->check(CLI::IsMember({"table", "json"}));
  sub->add_option("--out", a->out, "Write the report to FILE (published whole) instead of stdout");
  sub->add_option("--compare", a->compare,
                  "A saved `hrw bench --format json` run: print each figure's ratio to it");
  // Hidden test hook: proves that a result differing from the reference is an error (exit 1).
  sub->add_flag("--corrupt-first-check", a->corrupt_first_check)->group("");
  return [a]() -> int {
    std::vector<NamedInput> inputs;
    if (!a->compare.empty()) inputs.push_back({"--compare", a->compare});
    check_outputs({{"--out", a->out.empty() ? "-" : a->out}}, inputs);
    // The saved run is read before anything is measured: a bad file fails at once.
    std::optional<BenchReport> base;
    if (!a->compare.empty()) base = load_bench_json(a->compare);
    BenchOptions options = a->quick ? quick_bench_options() : default_bench_options();
    options.corrupt_first_check = a->corrupt_first_check;
    ProgressLine line;
    options.progress = line.callback();
    const BenchReport report = run_bench(options);
    line.finish();
    std::string text;
    if (base) {
      const BenchComparison comparison = compare_bench(report, *base, a->compare);
      text = a->format == "json" ? bench_json(report, comparison)
                                 : bench_table(report) + "\n" + comparison_table(comparison);
    } else {
      text = a->format == "json" ? bench_json(report) : bench_table(report);
    }
    if (a->out.empty()) {
      fmt::print("{}", text);
    } else {
      AtomicFile file(a->out);
      file.write(text);
      file.commit();
    }
    return 0;
  };
}

}  // namespace hrw::cli
