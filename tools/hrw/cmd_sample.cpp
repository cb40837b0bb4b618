// hrw sample: a ready-made keyspace and two views (10 nodes -> 11), so that the README's
// first command has something to plan.
#include <charconv>

#include <fmt/core.h>

#include "hrw/atomic_file.hpp"
#include "hrw/commands.hpp"
#include "hrw/numbers.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/process.hpp"
#include "hrw/view_json.hpp"

namespace hrw::cli {

namespace {

// The sample views, written by the one view serialiser (view_json.hpp).
std::string sample_view(std::int64_t version, int nodes) {
  static const char* const kZones[] = {"eu-1a", "eu-1b", "eu-1c"};
  ClusterSpec spec;
  spec.source = "sample";
  spec.version = version;
  for (int i = 0; i < nodes; ++i)
    spec.nodes.push_back({fmt::format("node-{}", i), std::nullopt, {{"zone", kZones[i % 3]}}});
  return view_json(spec);
}

// user:0 ... user:N-1, one per line, written in 1 MB pieces.
void write_keys(AtomicFile& f, std::uint64_t count) {
  std::string buf;
  char num[24];
  for (std::uint64_t i = 0; i < count; ++i) {
    buf += "user:";
    buf.append(num, std::to_chars(num, num + sizeof num, i).ptr);
    buf.push_back('\n');
    if (buf.size() >= (1u << 20)) f.write(buf), buf.clear();
  }
  f.write(buf);
}

}  // namespace

Runner add_sample(CLI::App& app) {
  auto count = std::make_shared<std::uint64_t>(1000000);
  auto dir = std::make_shared<std::string>();
  CLI::App* sub = app.add_subcommand(
      "sample", "Write sample data: DIR/keys.txt (user:0...), DIR/from.json (10 nodes, v1), "
                "DIR/to.json (11 nodes, v2)");
  // 10^9 keys are a 15 GB file: a sample beyond that is a typo, not a sample.
  add_unsigned(*sub, "--keys", *count, 0, 1'000'000'000, "Number of keys (default 1e6)");
  sub->add_option("--out", *dir, "Output folder (created if missing)")->required();
  return [count, dir]() -> int {
    check_outputs({{"--out", *dir, true}});
    make_output_dir(*dir);
    // All three or none: a plan must never read new keys against old views.
    AtomicFile from(*dir + "/from.json"), to(*dir + "/to.json"), keys(*dir + "/keys.txt");
    from.write(sample_view(1, 10));
    to.write(sample_view(2, 11));
    write_keys(keys, *count);
    commit_all({&keys, &from, &to});
    eprint("wrote {0}/keys.txt ({1} keys), {0}/from.json, {0}/to.json\n", *dir, *count);
    return 0;
  };
}

}  // namespace hrw::cli
