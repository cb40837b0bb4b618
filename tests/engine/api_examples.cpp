// The examples of docs/api.md, one TEST_CASE per entry, compiled against the public headers
// only (cmake/install.cmake, HRW_PUBLIC_HEADERS), each checking what its example claims.
#include <catch2/catch.hpp>

#include <string>

#include <hrw/cluster_view.hpp>
#include <hrw/csv.hpp>
#include <hrw/det_math.hpp>
#include <hrw/errors.hpp>
#include <hrw/hash.hpp>
#include <hrw/output.hpp>
#include <hrw/place.hpp>
#include <hrw/placement.hpp>
#include <hrw/plan.hpp>
#include <hrw/reference.hpp>
#include <hrw/select.hpp>
#include <hrw/targets.hpp>
#include <hrw/version.hpp>
#include <hrw/view_json.hpp>

#include "cli_runner.hpp"

namespace {

hrw::ClusterView zoned_view() {
  return hrw::ClusterView(hrw::parse_cluster_json(
      R"({"version": 3, "nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z1"},
          {"id": "c", "zone": "z2"}, {"id": "d", "zone": "z3"}]})",
      "zoned.json"));
}

}  // namespace

TEST_CASE("api.md, views: a spec overridden before validation, then a view", "[api][examples]") {
  hrw::ClusterSpec spec = hrw::cluster_from_id_list("a,b,c");
  hrw::apply_weight_list(spec, "2,1,1");
  const hrw::ClusterView view(spec);
  CHECK(view.weighted());
  CHECK(view.size() == 3);
  hrw::ClusterSpec bad = hrw::cluster_from_id_list("a,b");
  hrw::apply_weight_list(bad, "1,0");
  CHECK_THROWS_AS(hrw::ClusterView(bad), hrw::InputError);
  // The one serialiser reads back as the same view.
  const hrw::ClusterView again(hrw::parse_cluster_json(hrw::view_json(view), "again"));
  CHECK(hrw::view_json(again) == hrw::view_json(view));
}

TEST_CASE("api.md, placing keys: a request validated once, placed batch after batch", "[api][examples]") {
  const hrw::ClusterView view = zoned_view();
  hrw::PlaceOptions o;
  o.replicas = 3;
  o.distinct_label = "zone";
  const hrw::ValidRequest request = hrw::validate_request(view, o);
  const hrw::BatchPlacer placer(request);
  hrw::KeyBatch batch;
  for (int i = 0; i < 100; ++i) batch.add("user:" + std::to_string(i));
  hrw::Placement out;
  placer.place(batch, out);
  REQUIRE(out.size() == 100);
  for (std::size_t i = 0; i < out.size(); ++i) {
    const auto want = hrw::reference::top_r_distinct(view, batch[i], 3, "zone", false);
    for (std::uint32_t j = 0; j < 3; ++j) CHECK(out.node(i, j) == want.nodes[j]);
  }
  // A request the view cannot meet is refused at validation, naming the setting.
  o.replicas = 4;
  try {
    (void)hrw::validate_request(view, o);
    FAIL("4 replicas in 3 zones were accepted");
  } catch (const hrw::InputError& e) {
    CHECK(e.setting() == hrw::Setting::replica_count);
    CHECK(e.hint() == hrw::Hint::accept_partial);
  }
}

TEST_CASE("api.md, one key: select_key and its table and JSON", "[api][examples]") {
  const hrw::ClusterView view(hrw::cluster_from_id_list("node-1,node-2,node-3,node-4"));
  hrw::SelectRequest request;
  request.replicas = 2;
  const hrw::Selection s = hrw::select_key(view, "user:42", request);
  CHECK(view.node(s.replica_nodes.front()).id == "node-4");
  CHECK(hrw::selection_json(view, s).find(R"("owner":"node-4")") != std::string::npos);
  CHECK(hrw::selection_table(view, s) ==
        "key \"user:42\"  seed \"\"  hash fnv1a-fmix  version 0  unweighted\n"
        "  rank  node         fnv1a     score r\n"
        "*    1  node-4  2501216775  3013550908\n"
        "     2  node-3  2450883918  2264777988\n"
        "     3  node-1  2417328680  1038041658\n"
        "     4  node-2  2467661537   948476757\n"
        "owner: node-4\n"
        "replicas (2): node-4, node-3\n");
}

TEST_CASE("api.md, plans and check: a plan folder, then a placement checked", "[api][examples]") {
  const hrw::test::TempDir dir;
  const std::string keys = dir.write("keys.txt", "k1\nk2\nk3\nk4\nk5\nk6\nk7\nk8\n");
  const hrw::ClusterView from(hrw::cluster_from_id_list("a,b"));
  const hrw::ClusterView to(hrw::cluster_from_id_list("a,b,c"));
  hrw::PlanJob job;
  job.keys.path = keys;
  job.out_dir = dir.file("plan");
  const hrw::PlanSummary summary = hrw::run_plan(from, to, job);
  CHECK(summary.read.keys == 8);
  CHECK(hrw::summary_text(summary).find("moved") != std::string::npos);
  // Every key where `to` puts it: check_placement finds nothing misplaced.
  hrw::PlaceJob place;
  place.keys.path = keys;
  place.out = dir.file("current.csv");
  bool has_bytes = false, has_requests = false;
  (void)hrw::run_place(to, place, has_bytes, has_requests);
  hrw::CheckJob check;
  check.current.path = place.out;
  check.temp_dir = dir.path();
  const hrw::PlanSummary checked = hrw::check_placement(to, check);
  CHECK(checked.read.keys == 8);
  CHECK(checked.moved.keys == 0);
  CHECK(hrw::check_text(checked).find("8 keys, 0 not where v0 puts them") != std::string::npos);
}

TEST_CASE("api.md, errors: setting, detail and hint, worded by the front end", "[api][examples]") {
  const hrw::ClusterView view = zoned_view();
  try {
    (void)hrw::select_key(view, "k", {4, "zone", false});
    FAIL("4 replicas in 3 zones were accepted");
  } catch (const hrw::InputError& e) {
    CHECK(e.setting() == hrw::Setting::replica_count);
    CHECK(e.hint() == hrw::Hint::accept_partial);
    CHECK(std::string(e.what()).rfind("replica count", 0) == 0);
    CHECK(std::string(e.what()).find(e.detail()) != std::string::npos);
  }
  CHECK(hrw::quote_for_message("a\nb") == "\"a\\nb\"");
  CHECK(hrw::one_line("a\nb") == "a\\x0ab");
}

TEST_CASE("api.md, targets: every runnable target gives the same owners", "[api][examples]") {
  const hrw::ClusterView view(hrw::cluster_from_id_list("a,b,c,d,e"));
  hrw::KeyBatch batch;
  for (int i = 0; i < 64; ++i) batch.add("key-" + std::to_string(i));
  const hrw::BatchPlacer placer(view, hrw::PlaceOptions{});
  hrw::Placement best, forced;
  placer.place(batch, best);
  REQUIRE_FALSE(hrw::runnable_targets().empty());
  for (const hrw::SimdTarget& t : hrw::runnable_targets()) {
    const hrw::ScopedTarget on(t.name);
    CHECK(hrw::active_target().name == t.name);
    placer.place(batch, forced);
    CHECK(forced.nodes == best.nodes);
  }
}

TEST_CASE("api.md, the contract's building blocks: hash, deterministic math, CSV, version",
          "[api][examples]") {
  CHECK(hrw::fnv1a32("") == 2166136261u);
  CHECK(hrw::fmix32(0) == 0);
  CHECK(hrw::det::ln(1.0) == 0.0);
  CHECK(hrw::csv::quoted("a,b") == "\"a,b\"");
  CHECK(hrw::csv::quoted("plain") == "plain");
  CHECK(std::string(hrw::kVersion) == HRW_VERSION);
}
