// The library names concepts, never CLI flags; the CLI maps each concept to its flag.
#include <catch2/catch.hpp>

#include <string>

#include "cli_runner.hpp"
#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "hrw/placement.hpp"

using Catch::Matchers::Contains;

namespace {

hrw::InputError caught(const std::function<void()>& f) {
  try {
    f();
  } catch (const hrw::InputError& e) {
    return e;
  }
  FAIL("expected an InputError");
  return hrw::InputError("unreachable");
}

void no_flag_in(const std::string& message) {
  INFO(message);
  CHECK(message.find("--") == std::string::npos);
}

}  // namespace

TEST_CASE("library errors name the setting, not a flag", "[errors]") {
  const hrw::ClusterView view(hrw::cluster_from_id_list("a,b,c"));
  hrw::PlaceOptions o;
  o.replicas = 0;
  auto e = caught([&] { hrw::validate_request(view, o); });
  CHECK(e.setting() == hrw::Setting::replica_count);
  CHECK(std::string(e.what()) == "replica count must be at least 1, got 0");
  CHECK(e.hint() == hrw::Hint::none);
  no_flag_in(e.what());

  o.replicas = 4;
  e = caught([&] { hrw::validate_request(view, o); });
  CHECK(std::string(e.what()) == "replica count 4 exceeds the 3 node(s) of node list");
  CHECK(e.detail() == " 4 exceeds the 3 node(s) of node list");

  hrw::ClusterSpec spec;
  spec.source = "z.json";
  spec.nodes = {{"a", {}, {{"zone", "z1"}}}, {"b", {}, {{"zone", "z1"}}}};
  const hrw::ClusterView zoned(spec);
  o.replicas = 2;
  o.distinct_label = "zone";
  e = caught([&] { hrw::validate_request(zoned, o); });
  CHECK_THAT(e.what(), Contains("needs 2 failure domains, but z.json has only 1") &&
                           Contains("ask for partial results"));
  no_flag_in(e.what());
  // The hint is a typed field: front ends word it without matching the message.
  CHECK(e.hint() == hrw::Hint::accept_partial);
  CHECK(e.detail() == " 2 with distinct \"zone\" needs 2 failure domains, but z.json has only 1");
  CHECK(std::string(e.what()) == "replica count" + e.detail() +
                                     std::string(hrw::hint_text(hrw::Hint::accept_partial)));
  o.allow_partial = true;
  CHECK_NOTHROW(hrw::validate_request(zoned, o));

  hrw::ClusterSpec list = hrw::cluster_from_id_list("a,b");
  e = caught([&] { hrw::apply_weight_list(list, "1,2,3"); });
  CHECK(e.setting() == hrw::Setting::weight_list);
  CHECK(std::string(e.what()) == "weight list: 3 weights for 2 nodes (give exactly one per node)");

  e = caught([&] { hrw::parse_key_format("tsv"); });
  CHECK(e.setting() == hrw::Setting::key_format);
  no_flag_in(e.what());
}

TEST_CASE("the CLI names the flag that set the concept", "[errors][cli]") {
  using hrw::test::run_hrw;
  auto res = run_hrw({"select", "k", "--nodes", "a,b", "--replicas", "3"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --replicas 3 exceeds the 2 node(s) of --nodes\n");
  res = run_hrw({"select", "k", "--nodes", "a,b", "--weights", "1"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --weights: 1 weights for 2 nodes (give exactly one per node)\n");
  hrw::test::TempDir dir;
  const std::string cluster = dir.write(
      "c.json", R"({"nodes": [{"id": "a", "zone": "z"}, {"id": "b", "zone": "z"}]})");
  res = run_hrw({"select", "k", "--cluster", cluster, "--replicas", "2", "--distinct", "zone"});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains("hrw: --replicas 2 with distinct \"zone\"") &&
                          Contains("(use --partial to accept fewer)"));
}
