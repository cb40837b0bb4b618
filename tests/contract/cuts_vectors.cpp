// Contract §9 vectors of docs/contract-vectors.json ("cuts"): placement with cuts and
// balanced cuts, computed by tools/make-contract-vectors.py independently of this code.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/reference.hpp"

using namespace hrw;

namespace {

ClusterView view_of(const nlohmann::json& v) {
  ClusterSpec spec;
  spec.seed = v["seed"].get<std::string>();
  spec.hash = parse_hash_mode(v["hash"].get<std::string>());
  for (const auto& n : v["nodes"]) {
    NodeSpec node;
    for (const auto& [field, value] : n.items()) {
      if (field == "id") node.id = value.get<std::string>();
      else if (field == "weight") node.weight = value.get<double>();
      else if (field == "cut") node.cut = value.get<std::uint32_t>();
      else node.labels.emplace_back(field, value.get<std::string>());
    }
    spec.nodes.push_back(std::move(node));
  }
  return ClusterView(std::move(spec));
}

}  // namespace

TEST_CASE("contract vectors file: section 9 cuts", "[contract][cuts]") {
  const auto doc = nlohmann::json::parse(hrw::test::read_file(std::string(hrw::test::kSourceDir) + "/docs/contract-vectors.json"));
  const auto& cuts = doc.at("cuts");
  REQUIRE(cuts["placement"].size() >= 6);
  REQUIRE(cuts["balanced"].size() >= 4);
  bool some_overflow = false, some_distinct_overflow = false;
  for (const auto& v : cuts["placement"]) {
    INFO("vector " << v["name"].get<std::string>());
    const ClusterView view = view_of(v);
    const std::string key = v["key"].get<std::string>();
    const auto ranking = reference::rank(view, key);
    REQUIRE(ranking.size() == v["ranking"].size());
    for (std::size_t i = 0; i < ranking.size(); ++i) {
      CHECK(view.node(ranking[i].node).id == v["ranking"][i]["node"].get<std::string>());
      CHECK(ranking[i].r == v["ranking"][i]["r"].get<std::uint32_t>());
      CHECK(reference::clears(view, ranking[i]) == v["ranking"][i]["clears"].get<bool>());
    }
    for (const auto& p : v["placements"]) {
      const std::string label = p["distinct"].is_null() ? "" : p["distinct"].get<std::string>();
      const auto got = reference::place_with_cuts(view, key, p["r"].get<std::uint32_t>(), label, true);
      std::vector<std::string> ids;
      for (std::uint32_t n : got.nodes) ids.push_back(view.node(n).id);
      CHECK(ids == p["nodes"].get<std::vector<std::string>>());
      CHECK(got.overflow == p["overflow"].get<bool>());
      CHECK(got.partial == p["partial"].get<bool>());
      some_overflow = some_overflow || got.overflow;
      some_distinct_overflow = some_distinct_overflow || (got.overflow && !label.empty());
    }
  }
  CHECK(some_overflow);
  CHECK(some_distinct_overflow);
  std::uint64_t overflow_total = 0;
  for (const auto& v : cuts["balanced"]) {
    INFO("vector " << v["name"].get<std::string>());
    const ClusterView view = view_of(v);
    const auto keys = v["keys"].get<std::vector<std::string>>();
    const auto loads = v["loads"].get<std::vector<std::uint64_t>>();
    const auto got = reference::balanced_cuts(view, keys, loads, v["max_overload"].get<double>());
    for (std::uint32_t i = 0; i < view.size(); ++i) {
      const std::string& id = view.node(i).id;
      INFO("node " << id);
      CHECK(got.capacity[i] == v["capacity"][id].get<std::uint64_t>());
      CHECK(got.cuts[i] == v["cuts"][id].get<std::uint32_t>());
      CHECK(got.load[i] == v["load"][id].get<std::uint64_t>());
    }
    for (std::size_t k = 0; k < keys.size(); ++k) {
      const auto& h = v["holder"][k];
      if (h.is_null()) CHECK(got.holder[k] == kNoNode);
      else CHECK((got.holder[k] != kNoNode && view.node(got.holder[k]).id == h.get<std::string>()));
    }
    CHECK(got.overflow_keys == v["overflow_keys"].get<std::uint64_t>());
    overflow_total += got.overflow_keys;
  }
  CHECK(overflow_total > 0);
}
