// Contract §9 balanced cuts by streaming passes (hrw::balance_cuts, hrw balance) against the
// deferred-acceptance reference: the same cuts for any key order, by keys and by bytes,
// weighted views, overflow; and the CLI's file, stats and messages.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/balance.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"

using namespace hrw;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

namespace {

ClusterView view_of(std::size_t n, bool weighted, std::mt19937_64& rng) {
  ClusterSpec spec;
  spec.seed = rng() % 2 ? "s" : "";
  spec.hash = rng() % 3 ? HashMode::fnv1a_fmix : HashMode::fnv1a;
  for (std::size_t i = 0; i < n; ++i) {
    NodeSpec node;
    node.id = "node-" + std::to_string(i);
    if (weighted) node.weight = 0.5 + static_cast<double>(rng() % 8) / 2.0;
    spec.nodes.push_back(node);
  }
  return ClusterView(spec);
}

std::string csv_of(const std::vector<std::string>& keys, const std::vector<std::uint64_t>& bytes,
                   const std::vector<std::size_t>& order) {
  std::string out = "key,bytes\n";
  for (std::size_t i : order) out += fmt::format("{},{}\n", keys[i], bytes[i]);
  return out;
}

}  // namespace

TEST_CASE("balance: passes reach deferred acceptance's cuts, for any key order", "[cuts][balance]") {
  std::mt19937_64 rng(1717);
  test::TempDir dir;
  std::uint64_t overflow_seen = 0;
  for (int round = 0; round < 16; ++round) {
    const ClusterView view = view_of(3 + rng() % 20, round % 2, rng);
    const std::size_t count = 100 + rng() % 1500;
    std::vector<std::string> keys;
    std::vector<std::uint64_t> bytes;
    for (std::size_t i = 0; i < count; ++i) {
      keys.push_back(fmt::format("k{}:{}", round, i));
      bytes.push_back(round % 4 < 2 ? 1 + rng() % 5000 : (rng() % 7 == 0 ? 0 : 1 + rng() % 3));
    }
    const bool by_bytes = round % 3 != 0;
    const double eps = round % 4 == 0 ? 0.0 : round % 4 == 1 ? 0.01 : round % 4 == 2 ? 0.05 : 0.2;
    const std::vector<std::uint64_t> loads = by_bytes ? bytes : std::vector<std::uint64_t>(count, 1);
    const auto want = reference::balanced_cuts(view, keys, loads, eps);
    overflow_seen += want.overflow_keys;
    std::vector<std::size_t> order(count);
    std::iota(order.begin(), order.end(), 0);
    for (int s = 0; s < 2; ++s) {
      if (s) std::shuffle(order.begin(), order.end(), rng);
      const std::string path = dir.write(fmt::format("keys-{}-{}.csv", round, s), csv_of(keys, bytes, order));
      KeySource source(path, KeyFormat::csv);
      BalanceOptions o;
      o.max_overload = eps;
      o.by = by_bytes ? LoadBy::bytes : LoadBy::keys;
      o.threads = 1 + s;
      o.spill_dir = dir.path();
      const BalanceResult got = balance_cuts(view, source, o);
      INFO("round " << round << " shuffled " << s << " nodes " << view.size() << " keys " << count
                    << " eps " << eps);
      CHECK(got.cuts == want.cuts);
      CHECK(got.capacity == want.capacity);
      CHECK(got.keys == count);
      CHECK(got.total_load == std::accumulate(loads.begin(), loads.end(), std::uint64_t{0}));
      // After: placing every key with the cuts (the reference rule), loads and counts.
      const ClusterView cut(spec_with_cuts(view, want.cuts));
      std::vector<std::uint64_t> before(view.size(), 0), after(view.size(), 0);
      std::uint64_t displaced = 0, overflow = 0;
      for (std::size_t k = 0; k < count; ++k) {
        const std::uint32_t plain = reference::owner(view, keys[k]);
        const auto c = reference::place_with_cuts(cut, keys[k], 1);
        before[plain] += loads[k];
        after[c.nodes[0]] += loads[k];
        displaced += c.nodes[0] != plain;
        overflow += c.overflow;
      }
      CHECK(got.load_before == before);
      CHECK(got.load_after == after);
      CHECK(got.displaced == displaced);
      CHECK(got.overflow == overflow);
      CHECK(got.passes >= 1);
    }
  }
  CHECK(overflow_seen > 0);
}

TEST_CASE("balance: refused inputs", "[cuts][balance]") {
  test::TempDir dir;
  const std::string lines = dir.write("k.txt", "a\nb\n");
  std::mt19937_64 rng(1);
  const ClusterView view = view_of(3, false, rng);
  BalanceOptions o;
  o.spill_dir = dir.path();
  o.by = LoadBy::bytes;
  {
    KeySource source(lines, KeyFormat::lines);
    CHECK_THROWS_WITH(balance_cuts(view, source, o), Contains("balancing by bytes needs a \"bytes\" column"));
  }
  o.by = LoadBy::keys;
  o.max_overload = -0.5;
  {
    KeySource source(lines, KeyFormat::lines);
    CHECK_THROWS_WITH(balance_cuts(view, source, o), Contains("must be a finite number >= 0"));
  }
  ClusterSpec tree;
  tree.hierarchy = std::vector<std::string>{"zone"};
  tree.nodes.push_back({"a", {}, {{"zone", "z"}}});
  o.max_overload = 0.1;
  {
    KeySource source(lines, KeyFormat::lines);
    CHECK_THROWS_WITH(balance_cuts(ClusterView(tree), source, o), Contains("flat views only"));
  }
  // A rule of R > 1: §9's cuts are for one replica; the rule is named, not dropped.
  ClusterSpec three = spec_of(view);
  three.source = "r3.json";
  three.rule = PlacementRule{3, "", false};
  KeySource source(lines, KeyFormat::lines);
  CHECK_THROWS_WITH(balance_cuts(ClusterView(three), source, o),
                    Equals("r3.json: balanced cuts are defined for one replica (contract section 9); the view's "
                           "rule is " + describe(*ClusterView(three).rule())));
}

TEST_CASE("balance: the CLI writes B with the cuts, stats and a summary", "[cuts][balance][cli]") {
  test::TempDir dir;
  std::string nodes;
  for (int i = 0; i < 16; ++i) nodes += fmt::format("{}{{\"id\": \"node-{}\", \"zone\": \"z{}\"}}", i ? ", " : "", i, i % 3);
  const std::string b = dir.write("b.json", "{\"version\": 4, \"seed\": \"x\", \"nodes\": [" + nodes + "]}");
  std::string keys;
  for (int i = 0; i < 2048; ++i) keys += std::to_string(i) + "\n";
  const std::string out = dir.file("b2.json"), stats = dir.file("stats.json");
  auto r = test::run_hrw({"balance", "--cluster", b, "--keys", "-", "--max-overload", "0.05", "--out",
                          out, "--stats", stats}, keys);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("balance v4 -> v5 by keys: 2048 keys, load 2048, max overload 0.05"));
  CHECK_THAT(r.err, Contains("overflow keys: 0"));
  const auto b2 = nlohmann::json::parse(test::read_file(out));
  CHECK(b2["version"] == 5);
  CHECK(b2["seed"] == "x");
  CHECK(b2["nodes"].size() == 16);
  // The written cuts are the reference's, and labels are kept.
  const ClusterView written(parse_cluster_json(test::read_file(out), out));
  const ClusterView plain(load_cluster_file(b));
  std::vector<std::string> ks;
  for (int i = 0; i < 2048; ++i) ks.push_back(std::to_string(i));
  const auto want = reference::balanced_cuts(plain, ks, std::vector<std::uint64_t>(2048, 1), 0.05);
  for (std::uint32_t i = 0; i < 16; ++i) {
    CHECK(written.node(i).cut == want.cuts[i]);
    CHECK(written.node(i).label("zone") == plain.node(i).label("zone"));
  }
  CHECK(written.has_cuts());
  const auto s = nlohmann::json::parse(test::read_file(stats));
  CHECK(s["keys"] == 2048);
  CHECK(s["overflow"] == 0);
  CHECK(s["peak_load_over_target_after"].get<double>() <= 1.05);
  CHECK(s["peak_load_over_target_before"].get<double>() > 1.1);
  // hrw place with the written view puts no node above its capacity.
  const std::string keyfile = dir.write("keys.txt", keys);
  auto p = test::run_hrw({"place", "--cluster", out, "--keys", keyfile, "--out", dir.file("p.csv"), "--quiet"});
  REQUIRE(p.exit_code == 0);
  // --version, bad tolerance, missing bytes column.
  r = test::run_hrw({"balance", "--cluster", b, "--keys", keyfile, "--max-overload", "0.05", "--out", out,
                     "--version", "40", "--quiet"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(nlohmann::json::parse(test::read_file(out))["version"] == 40);
  r = test::run_hrw({"balance", "--cluster", b, "--keys", keyfile, "--max-overload", "-1", "--out", out});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("hrw: --max-overload: must be a number in [0, 1000000], got \"-1\""));
  r = test::run_hrw({"balance", "--cluster", b, "--keys", keyfile, "--by", "bytes", "--max-overload", "0.1",
                     "--out", out});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("needs a \"bytes\" column"));
}

// A large view with few keys: a key rejected in one pass moved one node down its ranking
// per pass, so the passes grew with N. Few keys on many nodes are balanced by deferred
// acceptance itself (the §9 reference): a bounded number of streams, the same cuts.
TEST_CASE("balance: few keys on many nodes take a bounded number of passes", "[cuts][balance]") {
  test::TempDir dir;
  std::mt19937_64 rng(99);
  for (const auto& [nodes, count, eps] : {std::tuple{4000u, 300u, 0.0}, std::tuple{3000u, 2500u, 0.05},
                                          std::tuple{2000u, 2000u, 0.5}}) {
    ClusterSpec spec;
    for (std::uint32_t i = 0; i < nodes; ++i) spec.nodes.push_back({fmt::format("node-{}", i), std::nullopt, {}});
    const ClusterView view(spec);
    std::vector<std::string> keys;
    std::string text = "key\n";
    for (std::uint32_t i = 0; i < count; ++i) keys.push_back(fmt::format("k{}", rng())), text += keys.back() + "\n";
    KeySource source(dir.write("few.csv", text), KeyFormat::csv);
    BalanceOptions o;
    o.max_overload = eps;
    o.spill_dir = dir.path();
    const BalanceResult got = balance_cuts(view, source, o);
    const auto want = reference::balanced_cuts(view, keys, std::vector<std::uint64_t>(count, 1), eps);
    INFO(nodes << " nodes, " << count << " keys, eps " << eps << ": " << got.passes << " passes");
    CHECK(got.cuts == want.cuts);
    CHECK(got.overflow == want.overflow_keys);
    CHECK(got.passes <= 4);
  }
}
