// Staged plans (docs/plan.md): every step moves at most F (measured again here from the
// written view files with the reference), the last view places every key as B does, a
// one-directional change moves no key twice, and impossible caps are clear errors.
#include <catch2/catch.hpp>

#include <filesystem>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/plan.hpp"
#include "hrw/reference.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;

namespace {

ClusterSpec with_nodes(int n, std::int64_t version, std::vector<double> weights = {}) {
  ClusterSpec s;
  s.version = version;
  for (int i = 0; i < n; ++i) {
    NodeSpec node{"node-" + std::to_string(i), std::nullopt, {}};
    if (!weights.empty()) node.weight = weights[static_cast<std::size_t>(i)];
    s.nodes.push_back(node);
  }
  return s;
}

struct Case {
  const char* name;
  ClusterSpec a, b;
  bool one_way;  // only adds/raises or only removes/lowers: total == direct
};

}  // namespace

TEST_CASE("staged plans: steps within the cap, last view = B, one-way changes move no key twice", "[plan][staged]") {
  test::TempDir dir;
  std::mt19937_64 rng(31);
  const std::size_t n = test::scaled(3000, test::kEmulatedScale);
  std::vector<std::string> keys;
  std::string text = "key,bytes\n";
  std::lognormal_distribution<double> size(6.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    keys.push_back("key-" + std::to_string(i));
    text += keys.back() + "," + std::to_string(static_cast<std::uint64_t>(size(rng))) + "\n";
  }
  const std::string input = dir.write("k.csv", text);
  std::vector<Case> cases = {
      {"add two", with_nodes(10, 1), with_nodes(12, 100), true},
      {"raise three, different ratios", with_nodes(6, 1, {1, 1, 1, 2, 1, 1}), with_nodes(6, 100, {3, 1, 2, 2, 1, 5}), true},
      {"add and raise", with_nodes(5, 1, {1, 1, 1, 1, 1}), with_nodes(7, 100, {2, 1, 1, 3, 1, 4, 0.5}), true},
      {"remove two", with_nodes(10, 1), with_nodes(8, 100), true},
      {"lower two", with_nodes(6, 1, {4, 1, 1, 3, 1, 1}), with_nodes(6, 100, {1, 1, 1, 0.5, 1, 1}), true},
  };
  ClusterSpec mixed = with_nodes(8, 100, {1, 3, 1, 1, 0.5, 1, 2, 1});
  mixed.nodes.erase(mixed.nodes.begin() + 2);
  cases.push_back({"mixed", with_nodes(8, 1, {1, 1, 1, 1, 1, 1, 1, 1}), mixed, false});
  for (const Case& c : cases)
    for (CapBy by : {CapBy::keys, CapBy::bytes})
      for (double f : {0.03, 0.1}) {
        INFO(c.name << " cap " << f << (by == CapBy::bytes ? " of bytes" : " of keys"));
        const ClusterView a(c.a), b(c.b);
        StagedPlanJob job;
        job.step.keys = {input, std::nullopt, 1 + rng() % 700, std::nullopt, {}};
        job.step.out_dir = dir.file("staged");
        job.max_moved_fraction = f;
        job.cap_by = by;
        std::filesystem::remove_all(job.step.out_dir);
        const StagedPlan plan = run_staged_plan(a, b, job);
        const auto summary = nlohmann::json::parse(test::read_file(dir.file("staged/summary.json")));
        REQUIRE(summary["steps"].size() == plan.steps.size());
        // Every step again from the written files, with the reference.
        ClusterView previous = a;
        std::uint64_t total = 0;
        std::vector<std::uint64_t> bytes_of;
        for (auto& line : test::parse_csv_file(input))
          if (line[0] != "key") bytes_of.push_back(std::stoull(line[1]));
        std::uint64_t all_bytes = 0;
        for (auto v : bytes_of) all_bytes += v;
        for (std::size_t k = 0; k < plan.steps.size(); ++k) {
          const std::string step = dir.file(fmt::format("staged/steps/{:02}", k + 1));
          const ClusterView view(load_cluster_file(step + "/view.json"));
          // Contract of "Versions": A's + k between the views, the last step B's own.
          CHECK(view.version() == (k + 1 == plan.steps.size() ? b.version() : a.version() + static_cast<std::int64_t>(k + 1)));
          std::uint64_t moved = 0;
          for (std::size_t i = 0; i < keys.size(); ++i)
            if (previous.node(reference::owner(previous, keys[i])).id != view.node(reference::owner(view, keys[i])).id)
              moved += by == CapBy::bytes ? bytes_of[i] : 1;
          const double whole = by == CapBy::bytes ? static_cast<double>(all_bytes) : static_cast<double>(keys.size());
          CHECK(static_cast<double>(moved) <= f * whole);
          CHECK(summary["steps"][k]["moved"] == moved);
          const auto step_summary = nlohmann::json::parse(test::read_file(step + "/summary.json"));
          CHECK(step_summary[by == CapBy::bytes ? "bytes_moved" : "moved"] == moved);
          total += moved;
          previous = view;
        }
        for (auto& k : keys) CHECK(previous.node(reference::owner(previous, k)).id == b.node(reference::owner(b, k)).id);
        CHECK(summary["total_moved"] == total);
        const std::uint64_t direct = summary["direct_moved"];
        if (c.one_way) CHECK(total == direct);
        CHECK(total >= direct);
        CHECK(summary["excess"] == total - direct);
        // As few steps as the cap allows for a one-way change: ⌈direct / cap⌉.
        const double whole = by == CapBy::bytes ? static_cast<double>(all_bytes) : static_cast<double>(keys.size());
        if (c.one_way && by == CapBy::keys)
          CHECK(plan.steps.size() == static_cast<std::size_t>(std::ceil(static_cast<double>(direct) / std::floor(f * whole))));
      }
}

TEST_CASE("staged plans: impossible or invalid caps exit 2 with one line", "[cli][staged][errors]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": [{"id": "a"}, {"id": "b"}]})");
  const std::string b = dir.write("b.json", R"({"version": 100, "nodes": [{"id": "a"}, {"id": "b"}, {"id": "c"}]})");
  std::string text = "key,bytes\n";
  for (int i = 0; i < 300; ++i) text += "k" + std::to_string(i) + ",1\n";
  // Heavy keys, each more than 2% of the bytes: some of them move to c.
  for (int i = 0; i < 20; ++i) text += "heavy-" + std::to_string(i) + ",100000\n";
  const std::string keys = dir.write("k.csv", text);
  const auto ok = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("fine"),
                                 "--max-moved-fraction", "0.3"});
  CHECK(ok.exit_code == 0);
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--max-moved-fraction", "0"}, "hrw: --max-moved-fraction: must be a number in (0, 1], got \"0\""},
      {{"--max-moved-fraction", "-0.5"}, "hrw: --max-moved-fraction: must be a number in (0, 1], got \"-0.5\""},
      {{"--max-moved-fraction", "1.5"}, "hrw: --max-moved-fraction: must be a number in (0, 1], got \"1.5\""},
      {{"--max-moved-fraction", "0.02", "--cap-by", "bytes"},  // a heavy key alone is more
       "hrw: no step moves at most 0.02 of the bytes"},
      {{"--max-moved-fraction", "0.001"}, "hrw: no step moves at most 0.001 of the keys"},  // less than one key
      {{"--max-moved-fraction", "0.2", "--cap-by", "rows"}, "hrw: --cap-by: must be keys, bytes or keys,bytes, got \"rows\""}};
  for (const auto& [extra, message] : cases) {
    std::vector<std::string> cmd = {"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("s")};
    cmd.insert(cmd.end(), extra.begin(), extra.end());
    const auto res = test::run_hrw(cmd);
    INFO(extra[1] << ": " << res.err);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    CHECK(res.err.find(message) != std::string::npos);
  }
  CHECK_FALSE(std::filesystem::exists(dir.file("s/summary.json")));
}
