// hrw verify: checks every SIMD target this CPU can run against the scalar reference on
// random clusters and keys. One line per target; exit 1 on any mismatch.
#include <cstdint>
#include <memory>

#include <fmt/core.h>

#include "hrw/commands.hpp"
#include "hrw/numbers.hpp"
#include "hrw/thread_pool.hpp"
#include "hrw/verify.hpp"

namespace hrw::cli {

Runner add_verify(CLI::App& app) {
  auto* sub = app.add_subcommand(
      "verify", "Check every runnable SIMD target against the scalar reference (bit-exact)");
  auto options = std::make_shared<VerifyOptions>();
  options->pairs = 20'000'000;
  add_unsigned(*sub, "--pairs", options->pairs, 1, 1'000'000'000'000,
               "(key, node) pairs to compare per target (default 2e7)");
  add_unsigned(*sub, "--seed", options->seed, 0, UINT64_MAX,
               "Seed of the random clusters and keys (default 1)");
  add_unsigned(*sub, "--threads", options->threads, Setting::thread_count, "Threads, 0: all cores");
  return [options]() -> int {
    const ThreadPool pool(options->threads);
    const auto results = verify_targets(*options);
    bool ok = true;
    for (const auto& r : results) {
      if (r.mismatches == 0) {
        fmt::print("{:<10} {:>14} pairs  {:>6} placements  OK\n", r.name, r.pairs, r.placements);
      } else {
        ok = false;
        fmt::print("{:<10} {:>14} pairs  {:>6} placements  MISMATCH ({} keys); first: {}\n",
                   r.name, r.pairs, r.placements, r.mismatches, r.first_mismatch);
      }
    }
    return ok ? 0 : 1;
  };
}

}  // namespace hrw::cli
