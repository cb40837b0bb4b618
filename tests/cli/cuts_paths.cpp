// Contract §9 on every CLI path: select, place, plan (plain and staged), check and balance
// follow the cuts, each checked against the independent reference (src/core/reference_cuts.cpp,
// reference::place_with_cuts), and plan summaries give each cut view's overflow keys.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"
#include "bulk_support.hpp"

using namespace hrw;
using test::run_hrw;

namespace {

// 12 nodes in 4 zones; every other node carries a cut (0 … 2^32 − 1), one of them so high
// that few keys clear it, so overflow keys arise for R = 3.
ClusterSpec cut_view(std::int64_t version, std::uint64_t seed, std::size_t nodes = 12) {
  std::mt19937_64 rng(seed);
  ClusterSpec s;
  s.version = version;
  for (std::size_t i = 0; i < nodes; ++i) {
    NodeSpec n{fmt::format("node-{}", i), std::nullopt, {{"zone", fmt::format("z{}", i % 4)}}};
    if (i % 2 == 0) n.cut = i == 0 ? 0xFFF00000u : static_cast<std::uint32_t>(rng() % 0xC0000000u);
    s.nodes.push_back(n);
  }
  return s;
}

std::vector<std::string> test_keys(std::size_t n) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i) keys.push_back("key-" + std::to_string(i));
  return keys;
}

std::string lines_of(const std::vector<std::string>& keys) {
  std::string text;
  for (const auto& k : keys) text += k + "\n";
  return text;
}

// The §9 reference's replica set of every key, as ids.
std::vector<std::vector<std::string>> reference_ids(const ClusterView& v, const std::vector<std::string>& keys,
                                                    std::uint32_t r, const std::string& label = {}) {
  std::vector<std::vector<std::string>> out;
  for (const auto& k : keys) {
    std::vector<std::string> ids;
    for (std::uint32_t n : reference::place_with_cuts(v, k, r, label).nodes) ids.push_back(v.node(n).id);
    out.push_back(std::move(ids));
  }
  return out;
}

std::uint64_t reference_overflow(const ClusterView& v, const std::vector<std::string>& keys, std::uint32_t r,
                                 const std::string& label = {}) {
  std::uint64_t over = 0;
  for (const auto& k : keys) over += reference::place_with_cuts(v, k, r, label).overflow;
  return over;
}

}  // namespace

TEST_CASE("cuts: select's owner and replicas are the §9 reference's, with the rule", "[cuts][cli]") {
  test::TempDir dir;
  ClusterSpec spec = cut_view(5, 1);
  spec.rule = PlacementRule{3, "zone", false};
  const ClusterView view(spec);
  const std::string file = dir.write("v.json", view_json(spec));
  std::size_t off_rank1 = 0, overflow = 0;
  for (const std::string& key : test_keys(60)) {
    INFO(key);
    const auto res = run_hrw({"select", key, "--cluster", file, "--format", "json"});
    REQUIRE(res.exit_code == 0);
    const auto j = nlohmann::json::parse(res.out);
    const auto owner = reference::place_with_cuts(view, key, 1);
    CHECK(j["owner"] == view.node(owner.nodes[0]).id);
    off_rank1 += j["owner"] != j["scores"][0]["node"];
    const auto want = reference::place_with_cuts(view, key, 3, "zone");
    std::vector<std::string> ids;
    for (auto n : want.nodes) ids.push_back(view.node(n).id);
    CHECK(j["replicas"] == nlohmann::json(ids));
    CHECK(j["overflow"] == want.overflow);
    overflow += want.overflow;
    for (const auto& row : j["scores"])
      CHECK(row["clears"] == (row["r"].get<std::uint32_t>() >= view.node(*view.find(row["node"].get<std::string>())).cut));
  }
  CHECK(off_rank1 > 0);  // the cuts decide some owners
}

TEST_CASE("cuts: place, R = 1 and R = 3 distinct zone, writes the §9 reference's sets and counts overflow",
          "[cuts][cli]") {
  test::TempDir dir;
  const ClusterSpec spec = cut_view(5, 2);
  const ClusterView view(spec);
  const std::string file = dir.write("v.json", view_json(spec));
  const auto keys = test_keys(3000);
  const std::string input = dir.write("k.txt", lines_of(keys));
  for (std::uint32_t r : {1u, 3u}) {
    INFO("R = " << r);
    std::vector<std::string> args = {"place", "--cluster", file, "--keys", input, "--out", dir.file("p.csv"),
                                     "--stats", dir.file("s.json"), "--replicas", std::to_string(r)};
    const std::string label = r == 3 ? "zone" : "";
    if (r == 3) args.insert(args.end(), {"--distinct", "zone"});
    const auto res = run_hrw(args);
    REQUIRE(res.exit_code == 0);
    const auto rows = test::parse_csv_file(dir.file("p.csv"));
    REQUIRE(rows.size() == keys.size() + 1);
    const auto want = reference_ids(view, keys, r, label);
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      std::vector<std::string> got(rows[i + 1].begin() + 1, rows[i + 1].end());
      wrong += rows[i + 1][0] != keys[i] || got != want[i];
    }
    CHECK(wrong == 0);
    const auto stats = nlohmann::json::parse(test::read_file(dir.file("s.json")));
    CHECK(stats["overflow_keys"] == reference_overflow(view, keys, r, label));
    if (r == 3) CHECK(stats["overflow_keys"].get<std::uint64_t>() > 0);
    CHECK_THAT(res.err, Catch::Matchers::Contains(fmt::format("overflow keys {}", stats["overflow_keys"].get<std::uint64_t>())));
  }
}

TEST_CASE("cuts: plan moves exactly the keys whose §9 owner changes, summary and stderr give each view's "
          "overflow keys, the plan without cuts beside it, and no expected fraction", "[cuts][cli][plan]") {
  test::TempDir dir;
  const ClusterSpec a_spec = cut_view(5, 3);
  ClusterSpec b_spec = cut_view(6, 4, 13);  // a node added, other cuts
  const ClusterView a(a_spec), b(b_spec);
  ClusterSpec uncut_a = a_spec, uncut_b = b_spec;
  for (auto& n : uncut_a.nodes) n.cut = 0;
  for (auto& n : uncut_b.nodes) n.cut = 0;
  const ClusterView plain_a(uncut_a), plain_b(uncut_b);
  const std::string fa = dir.write("a.json", view_json(a_spec)), fb = dir.write("b.json", view_json(b_spec));
  const auto keys = test_keys(4000);
  const std::string input = dir.write("k.txt", lines_of(keys));
  for (std::uint32_t r : {1u, 3u}) {
    INFO("R = " << r);
    const std::string out = dir.file(fmt::format("plan{}", r));
    std::vector<std::string> args = {"plan", "--from", fa, "--to", fb, "--keys", input, "--out", out,
                                     "--replicas", std::to_string(r)};
    const auto res = run_hrw(args);
    REQUIRE(res.exit_code == 0);
    const auto wa = reference_ids(a, keys, r), wb = reference_ids(b, keys, r);
    std::uint64_t moved = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      moved += std::set<std::string>(wa[i].begin(), wa[i].end()) != std::set<std::string>(wb[i].begin(), wb[i].end());
    const auto s = nlohmann::json::parse(test::read_file(out + "/summary.json"));
    CHECK(s["moved"] == moved);
    // Contract §9: the plan between the same views without cuts, from the reference.
    const auto pa = reference_ids(plain_a, keys, r), pb = reference_ids(plain_b, keys, r);
    std::uint64_t plain_moved = 0;
    for (std::size_t i = 0; i < keys.size(); ++i)
      plain_moved += std::set<std::string>(pa[i].begin(), pa[i].end()) != std::set<std::string>(pb[i].begin(), pb[i].end());
    REQUIRE(plain_moved != moved);  // else the two counts could be swapped unseen
    CHECK(s["plain_moved"] == plain_moved);
    CHECK(s["plain_moved_fraction"].get<double>() == Approx(static_cast<double>(plain_moved) / keys.size()));
    CHECK_THAT(res.err, Catch::Matchers::Contains(fmt::format("; without cuts {} (", plain_moved)));
    const std::uint64_t oa = reference_overflow(a, keys, r), ob = reference_overflow(b, keys, r);
    CHECK(s["from_overflow_keys"] == oa);
    CHECK(s["to_overflow_keys"] == ob);
    CHECK(!s.contains("expected_fraction"));
    CHECK_THAT(res.err, Catch::Matchers::Contains(fmt::format("; overflow keys: v5 {}, v6 {}", oa, ob)));
  }
  // Without cuts the fields are absent and the expected fraction is given.
  const auto res = run_hrw({"plan", "--from", dir.write("pa.json", view_json(uncut_a)), "--to",
                            dir.write("pb.json", view_json(uncut_b)), "--keys", input, "--out", dir.file("plain")});
  REQUIRE(res.exit_code == 0);
  const auto s = nlohmann::json::parse(test::read_file(dir.file("plain/summary.json")));
  CHECK(!s.contains("from_overflow_keys"));
  CHECK(!s.contains("to_overflow_keys"));
  CHECK(!s.contains("plain_moved"));
  CHECK_THAT(res.err, !Catch::Matchers::Contains("without cuts"));
  CHECK(s.contains("expected_fraction"));
  CHECK_THAT(res.err, !Catch::Matchers::Contains("overflow"));
}

TEST_CASE("cuts: a staged plan between cut views carries cuts in every step and ends at B", "[cuts][cli][staged]") {
  test::TempDir dir;
  ClusterSpec a_spec = cut_view(5, 5);
  ClusterSpec b_spec = cut_view(100, 6, 14);  // two nodes added, cuts changed; room for the steps' versions
  const ClusterView a(a_spec), b(b_spec);
  const auto keys = test_keys(3000);
  const std::string input = dir.write("k.txt", lines_of(keys));
  const double cap = 0.04;
  const auto res = run_hrw({"plan", "--from", dir.write("a.json", view_json(a_spec)), "--to",
                            dir.write("b.json", view_json(b_spec)), "--keys", input, "--out", dir.file("st"),
                            "--max-moved-fraction", fmt::format("{}", cap)});
  REQUIRE(res.exit_code == 0);
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("st/summary.json")));
  const std::size_t steps = summary["steps"].size();
  REQUIRE(steps >= 2);
  ClusterView previous = a;
  for (std::size_t k = 0; k < steps; ++k) {
    INFO("step " << k + 1);
    const std::string step = dir.file(fmt::format("st/steps/{:02}", k + 1));
    const std::string text = test::read_file(step + "/view.json");
    const ClusterView view(parse_cluster_json(text, "view.json"));
    // Every node with a cut in A and in B has one in every step (between the two).
    for (const Node& n : view.nodes()) {
      const auto ia = a.find(n.id), ib = b.find(n.id);
      const std::uint32_t ca = ia ? a.node(*ia).cut : b.node(*ib).cut;
      const std::uint32_t cb = ib ? b.node(*ib).cut : ca;
      CHECK(n.cut >= std::min(ca, cb));
      CHECK(n.cut <= std::max(ca, cb));
      if (ca != 0 && cb != 0) CHECK(n.cut != 0);
    }
    CHECK(view.has_cuts());
    // The step moves at most the cap, by the §9 reference, as its summary says.
    const auto wp = reference_ids(previous, keys, 1), wv = reference_ids(view, keys, 1);
    std::uint64_t moved = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) moved += wp[i] != wv[i];
    CHECK(static_cast<double>(moved) <= cap * static_cast<double>(keys.size()));
    const auto s = nlohmann::json::parse(test::read_file(step + "/summary.json"));
    CHECK(s["moved"] == moved);
    CHECK(s["to_overflow_keys"] == reference_overflow(view, keys, 1));
    previous = view;
  }
  // The last step is B: same nodes, weights and cuts, and every key placed as B places it.
  ClusterSpec last = spec_of(previous), want = spec_of(b);
  last.version = want.version = 0;
  last.source = want.source = "";
  CHECK(last == want);
  CHECK(reference_ids(previous, keys, 1) == reference_ids(b, keys, 1));
}

TEST_CASE("cuts: check accepts a §9 placement and flags a plain-rendezvous one", "[cuts][cli][check]") {
  test::TempDir dir;
  const ClusterSpec spec = cut_view(5, 7);
  const ClusterView view(spec);
  const std::string file = dir.write("v.json", view_json(spec));
  const auto keys = test_keys(2000);
  std::string cut_csv = "key,owner\n", plain_csv = "key,owner\n";
  std::size_t differ = 0;
  for (const auto& k : keys) {
    const std::string& cut_owner = view.node(reference::place_with_cuts(view, k, 1).nodes[0]).id;
    const std::string& plain_owner = view.node(reference::owner(view, k)).id;
    cut_csv += k + "," + cut_owner + "\n";
    plain_csv += k + "," + plain_owner + "\n";
    differ += cut_owner != plain_owner;
  }
  REQUIRE(differ > 0);
  auto res = run_hrw({"check", "--cluster", file, "--placement", dir.write("cut.csv", cut_csv), "--quiet"});
  CHECK(res.exit_code == 0);
  res = run_hrw({"check", "--cluster", file, "--placement", dir.write("plain.csv", plain_csv), "--format", "json"});
  CHECK(res.exit_code == 3);
  INFO(res.out);
  CHECK(nlohmann::json::parse(res.out)["misplaced"] == differ);
}

TEST_CASE("cuts: balance writes B with cuts through the one serialiser, keeps the rule, never over an input",
          "[cuts][cli][balance]") {
  test::TempDir dir;
  ClusterSpec spec = cut_view(7, 8);
  for (auto& n : spec.nodes) n.cut = 0;
  spec.seed = "s";
  spec.rule = PlacementRule{1, "zone", false};
  const std::string file = dir.write("v.json", view_json(spec));
  const std::string input = dir.write("k.txt", lines_of(test_keys(2000)));
  auto res = run_hrw({"balance", "--cluster", file, "--keys", input, "--max-overload", "0.02", "--out",
                      dir.file("b.json"), "--stats", dir.file("s.json"), "--quiet"});
  REQUIRE(res.exit_code == 0);
  const std::string text = test::read_file(dir.file("b.json"));
  const ClusterSpec b = parse_cluster_json(text, "b.json");
  CHECK(text == view_json(b));  // the serialiser's own bytes
  CHECK(b.version == 8);
  CHECK(b.seed == "s");
  CHECK(b.rule == spec.rule);
  const ClusterView bv(b);
  CHECK(bv.has_cuts());
  const auto stats = nlohmann::json::parse(test::read_file(dir.file("s.json")));
  for (const auto& row : stats["nodes"]) CHECK(bv.node(*bv.find(row["node"].get<std::string>())).cut == row["cut"]);
  // An output over an input is refused before anything is written; --version is strict.
  const std::string before = test::read_file(file);
  res = run_hrw({"balance", "--cluster", file, "--keys", input, "--max-overload", "0.02", "--out", file});
  CHECK(res.exit_code == 2);
  CHECK(test::read_file(file) == before);
  res = run_hrw({"balance", "--cluster", file, "--keys", input, "--max-overload", "0.02", "--out", dir.file("x.json"),
                 "--stats", input});
  CHECK(res.exit_code == 2);
  res = run_hrw({"balance", "--cluster", file, "--keys", input, "--max-overload", "0.02", "--out", dir.file("x.json"),
                 "--version", "12"});
  REQUIRE(res.exit_code == 0);
  CHECK(parse_cluster_json(test::read_file(dir.file("x.json")), "x.json").version == 12);
  for (const char* bad : {"-1", "1.5", "0x10"}) {
    res = run_hrw({"balance", "--cluster", file, "--keys", input, "--max-overload", "0.02", "--out",
                   dir.file("y.json"), "--version", bad});
    CHECK(res.exit_code == 2);
    CHECK_THAT(res.err, Catch::Matchers::StartsWith("hrw: --version: must be an integer from 0 to "));
  }
  CHECK(!std::filesystem::exists(dir.file("y.json")));
}
