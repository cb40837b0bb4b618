// Exact vectors for the contract: published FNV-1a values, fmix32, and the rankings and
// replica sets of docs/contract-vectors.json.
#include <catch2/catch.hpp>

#include <string>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/hash.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/placement.hpp"
#include "hrw/reference.hpp"

using namespace hrw;

namespace {

ClusterView view_of(std::vector<std::string> ids) {
  ClusterSpec spec;
  for (auto& id : ids) spec.nodes.push_back({std::move(id), {}, {}});
  return ClusterView(std::move(spec));
}

struct Row {
  std::string node;
  std::uint32_t fnv, r;
  double score;
};

void check_ranking(const ClusterView& view, std::string_view key, const std::vector<Row>& want) {
  auto got = reference::rank(view, key);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    INFO("rank " << i + 1);
    CHECK(view.node(got[i].node).id == want[i].node);
    CHECK(got[i].fnv == want[i].fnv);
    CHECK(got[i].r == want[i].r);
    CHECK(got[i].score == Approx(want[i].score).epsilon(1e-15));
  }
  CHECK(view.node(reference::owner(view, key)).id == want.front().node);
}

}  // namespace

TEST_CASE("FNV-1a 32 published vectors", "[contract][hash]") {
  STATIC_REQUIRE(fnv1a32("") == 0x811C9DC5u);
  STATIC_REQUIRE(fnv1a32("a") == 0xE40C292Cu);
  STATIC_REQUIRE(fnv1a32("foobar") == 0xBF9CF968u);
  // Continuing a state equals hashing the concatenation: the kernels rely on it.
  CHECK(fnv1a32_continue(fnv1a32("foo"), "bar") == fnv1a32("foobar"));
}

TEST_CASE("fmix32 vectors", "[contract][hash]") {
  STATIC_REQUIRE(fmix32(0) == 0u);
  STATIC_REQUIRE(fmix32(1) == 0x514E28B7u);
  STATIC_REQUIRE(fmix32(0x811C9DC5u) == 0xAB3E7C0Bu);
  STATIC_REQUIRE(fmix32(0xDEADBEEFu) == 0x0DE5C6A9u);
  STATIC_REQUIRE(fmix32(0xFFFFFFFFu) == 0x81F16F39u);
}

// docs/contract-vectors.json: the vectors as data (tools/make-contract-vectors.py computes
// them with Python integers from the contract's formulas, independently of this code).
TEST_CASE("contract vectors file: rankings and replicas", "[contract][ranking]") {
  const std::string text = hrw::test::read_file(std::string(hrw::test::kSourceDir) + "/docs/contract-vectors.json");
  const auto doc = nlohmann::json::parse(text);
  REQUIRE(doc["vectors"].size() >= 11);
  for (const auto& v : doc["vectors"]) {
    INFO("vector " << v["name"].get<std::string>());
    ClusterSpec spec;
    spec.seed = v["seed"].get<std::string>();
    spec.hash = parse_hash_mode(v["hash"].get<std::string>());
    if (v.contains("hierarchy")) spec.hierarchy = v["hierarchy"].get<std::vector<std::string>>();
    for (const auto& n : v["nodes"]) {
      NodeSpec node{n["id"].get<std::string>(), {}, {}};
      for (const auto& [field, value] : n.items()) {
        if (field == "weight") node.weight = value.get<double>();
        else if (field != "id") node.labels.emplace_back(field, value.get<std::string>());
      }
      spec.nodes.push_back(std::move(node));
    }
    const ClusterView view(std::move(spec));
    const std::string key = v["key"].get<std::string>();
    std::vector<Row> want;
    for (const auto& row : v["ranking"])
      want.push_back({row["node"].get<std::string>(), row["fnv"].get<std::uint32_t>(),
                      row["r"].get<std::uint32_t>(), row["score"].get<double>()});
    check_ranking(view, key, want);
    if (v.contains("path")) {
      const auto path = reference::owner_path(view, key);
      REQUIRE(path.size() == v["path"].size());
      for (std::size_t j = 0; j < path.size(); ++j) {
        const auto& p = v["path"][j];
        CHECK(view.hierarchy()->labels()[j] == p["level"].get<std::string>());
        CHECK(view.hierarchy()->level(j)[path[j].bucket].name == p["bucket"].get<std::string>());
        CHECK(path[j].fnv == p["fnv"].get<std::uint32_t>());
        CHECK(path[j].r == p["r"].get<std::uint32_t>());
        CHECK(path[j].score == Approx(p["score"].get<double>()).epsilon(1e-15));
      }
    }
    for (const auto& req : v["replicas"]) {
      const auto r = req["r"].get<std::uint32_t>();
      std::vector<std::string> got;
      bool partial = false;
      if (req["distinct"].is_null()) {
        for (std::uint32_t n : reference::top_r(view, key, r)) got.push_back(view.node(n).id);
      } else {
        const auto d = reference::top_r_distinct(view, key, r, req["distinct"].get<std::string>(), true);
        for (std::uint32_t n : d.nodes) got.push_back(view.node(n).id);
        partial = d.partial;
      }
      CHECK(got == req["nodes"].get<std::vector<std::string>>());
      CHECK(partial == req["partial"].get<bool>());
    }
  }
}

TEST_CASE("tie rule: equal scores rank the bytewise-smaller id first", "[contract][ties]") {
  SECTION("the comparator") {
    CHECK(id_less("a", "b"));
    CHECK(id_less("a", "ab"));  // a proper prefix first
    CHECK_FALSE(id_less("ab", "a"));
    CHECK(id_less("\x7f", "\x80"));  // unsigned bytes, as memcmp
    CHECK(id_less(std::string("a\0b", 3), "ab"));
    const ClusterView view = view_of({"zz", "a", "ab"});
    reference::PairScore x{0, 0, 7, 7.0, 7.0}, y{1, 0, 7, 7.0, 7.0};
    // Nodes are stored in id order: index 0 = "a", 1 = "ab", 2 = "zz".
    CHECK(reference::ranks_before(view, x, y));
    CHECK_FALSE(reference::ranks_before(view, y, x));
  }
  SECTION("a real collision of r between two ids") {
    // Among ~2^17 ids, two are certain (birthday bound) to share r for one key.
    std::unordered_map<std::uint32_t, std::string> seen;
    std::string a, b;
    for (int i = 0; a.empty(); ++i) {
      std::string id = "n" + std::to_string(i);
      const std::uint32_t r = fmix32(fnv1a32_continue(fnv1a32("tie-key"), id));
      auto [it, fresh] = seen.emplace(r, id);
      if (!fresh) a = it->second, b = id;
    }
    const ClusterView view = view_of({b, a});
    const auto ranking = reference::rank(view, "tie-key");
    REQUIRE(ranking[0].r == ranking[1].r);
    const std::string& smaller = id_less(a, b) ? a : b;
    CHECK(view.node(ranking[0].node).id == smaller);
    CHECK(view.node(reference::owner(view, "tie-key")).id == smaller);
  }
}

namespace {

// A vector's view through the cluster-file reader (so the vector is also a file test).
ClusterView vector_view(const nlohmann::json& v) {
  nlohmann::json file;
  for (const char* field : {"seed", "hash", "hierarchy", "rule", "nodes"})
    if (v.contains(field)) file[field] = v[field];
  return ClusterView(parse_cluster_json(file.dump(), "vector"));
}

}  // namespace

TEST_CASE("contract vectors file: §8 rules place as their replicas/distinct/partial", "[contract][rule]") {
  const auto doc = nlohmann::json::parse(hrw::test::read_file(std::string(hrw::test::kSourceDir) + "/docs/contract-vectors.json"));
  REQUIRE(doc["rule_vectors"].size() >= 4);
  for (const auto& v : doc["rule_vectors"]) {
    INFO("vector " << v["name"].get<std::string>());
    const ClusterView view = vector_view(v);
    REQUIRE(view.rule());
    const PlaceOptions o = options_for(view, PlaceOptions{}, GivenSettings{});
    CHECK(o.replicas == v["rule"].value("replicas", 1u));
    CHECK(o.distinct_label == v["rule"].value("distinct", std::string()));
    CHECK(o.allow_partial == v["rule"].value("partial", false));
    validate_request(view, o);
    const std::string key = v["key"].get<std::string>();
    std::vector<std::string> got;
    bool partial = false;
    if (o.distinct_label.empty()) {
      for (std::uint32_t n : reference::top_r(view, key, o.replicas)) got.push_back(view.node(n).id);
    } else {
      const auto d = reference::top_r_distinct(view, key, o.replicas, o.distinct_label, o.allow_partial);
      for (std::uint32_t n : d.nodes) got.push_back(view.node(n).id);
      partial = d.partial;
    }
    CHECK(got == v["placement"]["nodes"].get<std::vector<std::string>>());
    CHECK(partial == v["placement"]["partial"].get<bool>());
  }
}

TEST_CASE("contract vectors file: §8 distinct labels refused, warned or accepted", "[contract][rule]") {
  const auto doc = nlohmann::json::parse(hrw::test::read_file(std::string(hrw::test::kSourceDir) + "/docs/contract-vectors.json"));
  REQUIRE(doc["distinct_checks"].size() >= 5);
  for (const auto& c : doc["distinct_checks"]) {
    INFO("check " << c["name"].get<std::string>());
    const ClusterView view = vector_view(c);
    PlaceOptions o;
    o.distinct_label = c["label"].get<std::string>();
    const std::string outcome = c["outcome"].get<std::string>();
    if (outcome == "refused") {
      std::string labels;
      for (const auto& l : c["labels"]) labels += (labels.empty() ? "" : ", ") + quote_for_message(l.get<std::string>());
      const std::string list = labels.empty() ? "it has no labels" : "its labels: " + labels;
      CHECK(view.label_names() == c["labels"].get<std::vector<std::string>>());
      CHECK_THROWS_WITH(validate_request(view, o),
                        "distinct label " + quote_for_message(o.distinct_label) +
                            " is a label no node of vector carries (" + list + ")");
      continue;
    }
    CHECK_NOTHROW(validate_request(view, o));
    const auto warning = distinct_warning(view, o);
    if (outcome == "ok") {
      CHECK_FALSE(warning);
      continue;
    }
    REQUIRE(warning);
    CHECK(view.label_coverage(o.distinct_label).lacking == c["lacking"].get<std::size_t>());
    CHECK(view.node(view.label_coverage(o.distinct_label).first_lacking).id == c["first"].get<std::string>());
    CHECK(warning->find(fmt::format("{} of the {} nodes", c["lacking"].get<std::size_t>(), view.size())) == 0);
  }
}
