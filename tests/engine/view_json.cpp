// The one view serialiser (view_json.hpp): every field survives JSON and CBOR round trips
// on random views (weighted, hierarchical, with a rule, odd bytes), a copied view places
// every key as the original, and every path that copies a view (staged steps, hrw sample)
// writes every field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/errors.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"
#include "hrw/view_json.hpp"
#include "random_cluster.hpp"
#include "random_hierarchy.hpp"

using namespace hrw;

namespace {

// Strings JSON can carry (valid UTF-8): quotes, backslashes, control bytes, NUL,
// multi-byte characters, U+2028, U+FFFF, '/' and '='.
std::string odd_text(std::mt19937_64& rng, std::size_t max_pieces) {
  static const std::string kPieces[] = {"a", "\"", "\\", "\n", "\t", "\x01", "\x7f", "\xc3\xa9",
                                        "\xe2\x80\xa8", "\xf0\x9f\x98\x80", "\xef\xbf\xbf", "/",
                                        "=", std::string("\0", 1), "node", " "};
  std::string s;
  for (std::size_t k = rng() % (max_pieces + 1); k > 0; --k) s += kPieces[rng() % std::size(kPieces)];
  return s;
}

// Any bytes (what CBOR carries and JSON cannot).
std::string any_bytes(std::mt19937_64& rng, std::size_t max_len) {
  return test::random_bytes(rng, 0, max_len);
}

double odd_weight(std::mt19937_64& rng) {
  static const double kEdges[] = {kMinWeight, kMaxWeight, 0.1, 1.0 / 3.0, 1.0, 2.5, 1e-7, 123456789.123};
  if (rng() & 1) return kEdges[rng() % std::size(kEdges)];
  std::uniform_real_distribution<double> log10w(-9, 15);
  return std::pow(10.0, log10w(rng));
}

// A spec with every field set at random. Adding a field to ClusterSpec: one line here.
ClusterSpec random_spec(std::mt19937_64& rng, bool json_safe) {
  auto text = [&](std::size_t n) { return json_safe ? odd_text(rng, n) : any_bytes(rng, n * 2); };
  static const std::int64_t kVersions[] = {0, 1, -1, INT64_MAX, INT64_MIN, 12};
  ClusterSpec s;
  s.source = "random";
  s.seed = text(4);
  s.hash = (rng() & 1) ? HashMode::fnv1a : HashMode::fnv1a_fmix;
  s.version = (rng() & 1) ? kVersions[rng() % std::size(kVersions)] : static_cast<std::int64_t>(rng());
  if (rng() % 3 == 0) {
    s.hierarchy.emplace();
    for (std::size_t k = rng() % 3; k > 0; --k) s.hierarchy->push_back("h" + text(2));
  }
  if (rng() % 3 == 0)
    s.rule = PlacementRule{static_cast<std::uint32_t>(1 + rng() % UINT32_MAX),
                           (rng() & 1) ? "d" + text(3) : "", static_cast<bool>(rng() & 1)};
  for (std::size_t n = 1 + rng() % 12; s.nodes.size() < n;) {
    NodeSpec node;
    node.id = "n" + std::to_string(s.nodes.size()) + text(3);
    if (rng() & 1) node.weight = odd_weight(rng);
    // The reader gives labels in name order (memcmp), one value per name.
    for (std::size_t k = rng() % 4; k > 0; --k) {
      std::string name = "l" + std::to_string(k) + text(2);
      node.labels.emplace(node.labels.begin(), std::move(name), text(3));
    }
    std::sort(node.labels.begin(), node.labels.end());
    s.nodes.push_back(std::move(node));
  }
  return s;
}

// Labels in name order, as the reader gives them (a spec built in code may list them in
// any order; the view does not depend on it).
ClusterSpec canonical(ClusterSpec s) {
  for (NodeSpec& n : s.nodes) std::sort(n.labels.begin(), n.labels.end());
  return s;
}

std::vector<std::string> test_keys(std::size_t n) {
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i) keys.push_back("user:" + std::to_string(i));
  keys.push_back("");
  keys.push_back(std::string("\0\xff", 2));
  return keys;
}

// Every key's replica set by the reference, as ids: what "places the same" means.
std::vector<std::vector<std::string>> reference_sets(const ClusterView& v,
                                                     const std::vector<std::string>& keys,
                                                     std::uint32_t r) {
  std::vector<std::vector<std::string>> out;
  for (const std::string& k : keys) {
    std::vector<std::string> ids;
    // Contract §9: a view with cuts places by them.
    const auto nodes = v.has_cuts() ? reference::place_with_cuts(v, k, r).nodes : reference::top_r(v, k, r);
    for (std::uint32_t n : nodes) ids.push_back(v.node(n).id);
    out.push_back(std::move(ids));
  }
  return out;
}

}  // namespace

TEST_CASE("view_json: parse(serialise(spec)) == spec for every field, JSON and CBOR", "[view_json]") {
  std::mt19937_64 rng(20261201);
  for (int round = 0; round < 400; ++round) {
    INFO("round " << round);
    const ClusterSpec json_spec = random_spec(rng, true);
    const ClusterSpec back = parse_cluster_json(view_json(json_spec), "random");
    CHECK(back == json_spec);
    const ClusterSpec cbor_spec = random_spec(rng, false);
    CHECK(parse_view_cbor(view_cbor(cbor_spec), "random") == cbor_spec);
    CHECK(parse_view_cbor(view_cbor(json_spec), "random") == json_spec);
  }
}

TEST_CASE("view_json: a field the writer dropped would fail the round trip", "[view_json]") {
  // The comparison sees every field: a spec that differs in any one is not equal.
  ClusterSpec a;
  a.nodes.push_back({"x", 2.0, {{"zone", "z"}}});
  a.hierarchy = std::vector<std::string>{"zone"};
  a.rule = PlacementRule{2, "zone", true};
  for (int field = 0; field < 7; ++field) {
    ClusterSpec b = a;
    switch (field) {
      case 0: b.seed = "s"; break;
      case 1: b.hash = HashMode::fnv1a; break;
      case 2: b.version = 1; break;
      case 3: b.hierarchy.reset(); break;
      case 4: b.rule->partial = false; break;
      case 5: b.nodes[0].weight.reset(); break;
      case 6: b.nodes[0].labels.clear(); break;
    }
    CHECK_FALSE(b == a);
    CHECK_FALSE(parse_cluster_json(view_json(b), a.source) == a);
  }
}

TEST_CASE("view_json: JSON refuses bytes it cannot hold, naming them, CBOR keeps them", "[view_json]") {
  ClusterSpec s;
  s.source = "--nodes";
  s.nodes.push_back({std::string("a\xff", 2), std::nullopt, {}});
  try {
    (void)view_json(s);
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()) == "--nodes: node id \"a\\xff\" is not UTF-8: a cluster file (JSON) cannot hold it");
  }
  CHECK(parse_view_cbor(view_cbor(s), "--nodes") == s);
  CHECK_THROWS_WITH(parse_view_cbor("not cbor", "pickle"), "pickle: not a serialised cluster view");
}

TEST_CASE("view_json: a node's cut is written only when it is not 0, and read back strictly", "[view_json][cuts]") {
  ClusterSpec s;
  s.source = "c.json";
  s.version = 13;
  s.nodes.push_back({"n1", std::nullopt, {}, 0});
  s.nodes.push_back({"n2", 2.0, {{"zone", "a"}}, 4294967295u});
  const std::string text = view_json(s);
  CHECK(text == R"({
  "version": 13,
  "seed": "",
  "hash": "fnv1a-fmix",
  "nodes": [
    {
      "id": "n1"
    },
    {
      "id": "n2",
      "weight": 2.0,
      "zone": "a",
      "cut": 4294967295
    }
  ]
}
)");
  CHECK(parse_cluster_json(text, "c.json") == s);
  CHECK(parse_view_cbor(view_cbor(s), "c.json") == s);
  const ClusterView v(s);
  CHECK(spec_of(v).nodes[1].cut == 4294967295u);
  CHECK(view_json(v) == text);
  // Read back strictly: what is not an integer 0 … 2^32 − 1 is refused, naming the node.
  for (const char* bad : {"-1", "4294967296", "1.5", "2.0", "\"7\"", "true", "1e3"}) {
    INFO(bad);
    CHECK_THROWS_WITH(parse_cluster_json(std::string(R"({"nodes": [{"id": "n1", "cut": )") + bad + "}]}", "c.json"),
                      Catch::Matchers::StartsWith("c.json: nodes[0] (\"n1\"): cut must be an integer from 0 to 4294967295, got "));
  }
}

TEST_CASE("view_json: a copied view places every key as the original (flat, weighted, hierarchical, rule)",
          "[view_json]") {
  std::mt19937_64 rng(77);
  const auto keys = test_keys(300);
  for (int round = 0; round < 60; ++round) {
    ClusterSpec spec = round % 2 ? test::random_hierarchy(rng, 60, round % 4 == 1)
                                 : test::random_cluster(rng, {1, 40, round % 4 == 2, true, round % 3 == 0});
    if (round % 3 == 0) spec.rule = PlacementRule{1, "", false};
    if (round % 4 == 0)  // contract §9 cuts on a flat view: some nodes, 0 … 2^32 − 1
      for (std::size_t i = 0; i < spec.nodes.size(); i += 2)
        spec.nodes[i].cut = i % 4 ? static_cast<std::uint32_t>(rng()) : 0xFFFFFFFFu - static_cast<std::uint32_t>(i);
    const ClusterView v(spec);
    INFO("round " << round);
    // CBOR always; JSON when the random ids and seed are UTF-8 (else view_json refuses).
    std::vector<ClusterSpec> copies = {parse_view_cbor(view_cbor(spec_of(v)), v.source())};
    try {
      copies.push_back(parse_cluster_json(view_json(v), v.source()));
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("is not UTF-8") != std::string::npos);
    }
    for (const ClusterSpec& copy : copies) {
      const ClusterView w(copy);
      CHECK(canonical(spec_of(w)) == canonical(spec_of(v)));
      CHECK((w.hierarchy() != nullptr) == (v.hierarchy() != nullptr));
      const std::uint32_t r = std::min<std::uint32_t>(3, static_cast<std::uint32_t>(v.size()));
      CHECK(reference_sets(w, keys, r) == reference_sets(v, keys, r));
    }
  }
}

TEST_CASE("hrw sample writes its views with the one serialiser", "[view_json][cli]") {
  test::TempDir dir;
  const auto r = test::run_hrw({"sample", "--keys", "10", "--out", dir.file("s")});
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"from.json", "to.json"}) {
    const std::string text = test::read_file(dir.file(std::string("s/") + name));
    // The file is the serialiser's output: writing what it reads gives the same bytes.
    CHECK(text == view_json(parse_cluster_json(text, name)));
  }
}

namespace {

// Z zones x K racks x M nodes, hierarchy [zone, rack]; `extra` more nodes in a new rack.
ClusterSpec zoned(int zones, int racks, int nodes, int extra, std::int64_t version) {
  ClusterSpec s;
  s.version = version;
  s.hierarchy = std::vector<std::string>{"zone", "rack"};
  for (int z = 0; z < zones; ++z)
    for (int r = 0; r < racks; ++r)
      for (int m = 0; m < nodes; ++m)
        s.nodes.push_back({fmt::format("n-{}-{}-{}", z, r, m), std::nullopt,
                           {{"rack", fmt::format("r{}", r)}, {"zone", fmt::format("z{}", z)}}});
  for (int m = 0; m < extra; ++m)
    s.nodes.push_back({fmt::format("new-{}", m), std::nullopt, {{"rack", "r-new"}, {"zone", "z0"}}});
  return s;
}

}  // namespace

TEST_CASE("staged plan of a hierarchical view: every step's view.json keeps the hierarchy and "
          "moves at most the cap, the last places every key as B", "[view_json][staged][cli]") {
  test::TempDir dir;
  const ClusterSpec a_spec = zoned(3, 3, 4, 0, 1), b_spec = zoned(3, 3, 4, 6, 2);
  const ClusterView a(a_spec), b(b_spec);
  const std::string a_file = dir.write("a.json", view_json(a_spec));
  const std::string b_file = dir.write("b.json", view_json(b_spec));
  std::vector<std::string> keys;
  std::string text;
  for (int i = 0; i < 2000; ++i) {
    keys.push_back("user:" + std::to_string(i));
    text += keys.back() + "\n";
  }
  const std::string keys_file = dir.write("k.txt", text);
  const auto res = test::run_hrw({"plan", "--from", a_file, "--to", b_file, "--keys", keys_file,
                                  "--out", dir.file("p"), "--max-moved-fraction", "0.05", "--quiet",
                                  "--step-versions", "100"});
  INFO(res.err);
  REQUIRE(res.exit_code == 0);
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  REQUIRE(summary["steps"].size() >= 2);
  const ClusterView* previous = &a;
  std::vector<ClusterView> steps;
  steps.reserve(summary["steps"].size());
  const std::uint64_t cap = 100;  // floor(0.05 x 2000)
  for (std::size_t k = 0; k < summary["steps"].size(); ++k) {
    INFO("step " << k + 1);
    const std::string step = dir.file(fmt::format("p/steps/{:02}", k + 1));
    steps.emplace_back(load_cluster_file(step + "/view.json"));
    const ClusterView& view = steps.back();
    REQUIRE(view.hierarchy() != nullptr);
    CHECK(view.hierarchy()->labels() == std::vector<std::string>{"zone", "rack"});
    std::uint64_t moved = 0;
    for (const std::string& key : keys)
      moved += previous->node(reference::owner(*previous, key)).id != view.node(reference::owner(view, key)).id;
    CHECK(moved <= cap);
    // moves.csv lists exactly the keys the reference moves.
    const std::string moves = test::read_file(step + "/moves.csv");
    CHECK(static_cast<std::uint64_t>(std::count(moves.begin(), moves.end(), '\n')) == moved + 1);
    previous = &view;
  }
  for (const std::string& key : keys)
    CHECK(previous->node(reference::owner(*previous, key)).id == b.node(reference::owner(b, key)).id);
}

TEST_CASE("staged plans refuse, in one line each, views they cannot step between and versions "
          "that would collide or wrap", "[view_json][staged][cli]") {
  test::TempDir dir;
  std::string text;
  for (int i = 0; i < 200; ++i) text += "k" + std::to_string(i) + "\n";
  const std::string keys = dir.write("k.txt", text);
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": ["a", "b", "c"]})");
  const std::string b_far = dir.write("b-far.json", R"({"version": 100, "nodes": ["a", "b", "c"]})");
  const std::string c = dir.write("c.json", R"({"version": 1, "seed": "other", "nodes": ["a", "b", "c"]})");
  const std::string d = dir.write("d.json", R"({"version": 0, "nodes": ["a", "b"]})");
  struct Refusal {
    std::string from, to;
    std::vector<std::string> options;
    std::string message;
  };
  for (const Refusal& r : std::vector<Refusal>{
           // No version between A's and B's for the steps before the last (which is B).
           {a, b, {"--max-moved-fraction", "0.1"},
            "hrw: " + b + ": the plan has "},
           // Chosen versions that pass the largest, or include A's or B's.
           {a, b_far, {"--max-moved-fraction", "0.1", "--step-versions", "9223372036854775806"},
            "hrw: --step-versions: "},
           {a, b_far, {"--max-moved-fraction", "0.1", "--step-versions", "99"},
            "hrw: --step-versions: the "},
           {d, c, {"--max-moved-fraction", "1"},
            "hrw: a staged plan needs two views that differ only in nodes and weights: " + d + " and " + c +
                " differ in seed\n"}}) {
    std::vector<std::string> args = {"plan", "--from", r.from, "--to", r.to, "--keys", keys, "--out", dir.file("out")};
    args.insert(args.end(), r.options.begin(), r.options.end());
    const auto res = test::run_hrw(args);
    INFO(res.err);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    CHECK(res.err.rfind(r.message, 0) == 0);
    CHECK_FALSE(std::filesystem::exists(dir.file("out/steps")));
  }
  // The room given, the steps take it: A's + k, and the last step is B under B's version.
  const auto ok = test::run_hrw({"plan", "--from", a, "--to", b_far, "--keys", keys, "--out", dir.file("fine"),
                                 "--max-moved-fraction", "0.1", "--quiet"});
  REQUIRE(ok.exit_code == 0);
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("fine/summary.json")));
  const std::size_t steps = summary["steps"].size();
  REQUIRE(steps >= 3);
  for (std::size_t k = 0; k < steps; ++k)
    CHECK(summary["steps"][k]["version"] == (k + 1 == steps ? 100 : 1 + static_cast<std::int64_t>(k + 1)));
  const auto chosen = test::run_hrw({"plan", "--from", a, "--to", b_far, "--keys", keys, "--out", dir.file("chosen"),
                                     "--max-moved-fraction", "0.1", "--step-versions", "5000", "--quiet"});
  REQUIRE(chosen.exit_code == 0);
  const auto chosen_summary = nlohmann::json::parse(test::read_file(dir.file("chosen/summary.json")));
  for (std::size_t k = 0; k < chosen_summary["steps"].size(); ++k)
    CHECK(chosen_summary["steps"][k]["version"] ==
          (k + 1 == chosen_summary["steps"].size() ? 100 : 5000 + static_cast<std::int64_t>(k)));
  // Without a staged plan there is nothing to number.
  const auto alone = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("x"),
                                    "--step-versions", "7"});
  CHECK(alone.exit_code == 2);
  CHECK(alone.err == "hrw: --step-versions requires --max-moved-fraction\n");
}
