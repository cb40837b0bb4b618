// Plans in parts (plan_parts.hpp): parts planned alone and merged equal one plan of all the
// keys, rows and batch numbers included; the moved indices are the reference's; the
// summary round-trips through its JSON. And KeyView: keys read in place, slices included.
#include <catch2/catch.hpp>

#include <map>
#include <random>
#include <set>

#include <filesystem>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/output.hpp"
#include "hrw/plan.hpp"
#include "hrw/plan_parts.hpp"
#include "hrw/reference.hpp"
#include "bulk_support.hpp"
#include "output/move_rows.hpp"

using namespace hrw;

namespace {

ClusterSpec spec_of(std::mt19937_64& rng, std::int64_t version, int first, int nodes, bool weighted) {
  ClusterSpec s;
  s.version = version;
  for (int i = first; i < first + nodes; ++i) {
    NodeSpec n;
    n.id = "n," + std::to_string(i);
    if (weighted) n.weight = 0.5 + static_cast<double>(rng() % 4);
    n.labels.emplace_back("zone", "z" + std::to_string(i % 3));
    s.nodes.push_back(n);
  }
  return s;
}

struct Keys {
  KeyBatch batch;
  std::vector<std::uint64_t> bytes, requests;
};

Keys keys_of(const std::vector<std::string>& keys, std::mt19937_64& rng) {
  Keys k;
  for (const auto& key : keys) {
    k.batch.add(key);
    k.bytes.push_back(rng() % 1000);
    k.requests.push_back(rng() % 9);
  }
  return k;
}

// The whole plan the way `hrw plan` accounts for one chunk, placed by the reference.
PlanSummary whole_plan(const ClusterView& a, const ClusterView& b, const Keys& k, bool loads,
                       const PlaceOptions& o, std::uint64_t batch_size, std::string& rows) {
  KeyChunk chunk;
  chunk.keys = k.batch;
  if (loads) chunk.bytes = k.bytes, chunk.requests = k.requests;
  PlaceOptions ref = o;
  ref.engine = Engine::reference;
  PlanBuilder builder(a, b, o, o, batch_size);  // both views by o (its rule is named in the summary)
  const MoveCsv csv(builder.ids(), loads, loads);
  BatchedMoveRows sink(csv, batch_size, rows);
  builder.add(chunk, place(a, chunk.keys, ref), place(b, chunk.keys, ref), &sink);
  return builder.finish(chunk.size(), loads, loads);
}

std::set<std::string> ids(const ClusterView& v, std::string_view key, const PlaceOptions& o) {
  std::vector<std::uint32_t> nodes =
      o.distinct_label.empty() ? reference::top_r(v, key, o.replicas)
                               : reference::top_r_distinct(v, key, o.replicas, o.distinct_label, true).nodes;
  std::set<std::string> out;
  for (auto n : nodes) out.insert(v.node(n).id);
  return out;
}

}  // namespace

TEST_CASE("a plan in parts, merged, is the plan of all keys", "[plan][parts]") {
  std::mt19937_64 rng(20261201);
  const int trials = static_cast<int>(test::scaled(24));
  for (int t = 0; t < trials; ++t) {
    const bool weighted = t % 2 == 1;
    const ClusterView a(spec_of(rng, 3, 0, 3 + static_cast<int>(rng() % 6), weighted));
    const ClusterView b(spec_of(rng, 4, static_cast<int>(rng() % 2), 3 + static_cast<int>(rng() % 6), weighted));
    PlaceOptions o;
    o.replicas = 1 + static_cast<std::uint32_t>(t % 3);
    if (t % 4 == 3) o.distinct_label = "zone", o.allow_partial = true;
    const bool loads = t % 3 != 0;
    const std::uint64_t batch_size = 1 + rng() % 9;
    const Keys k = keys_of(test::tricky_keys(test::scaled(3000), rng(), true), rng);
    CAPTURE(t, o.replicas, o.distinct_label, loads, batch_size);

    std::string whole_rows;
    const PlanSummary whole = whole_plan(a, b, k, loads, o, batch_size, whole_rows);
    const KeyView all = k.batch.view();

    // Cut into 1..5 parts (empty ones included) at random points.
    std::vector<std::size_t> cuts{0, all.size()};
    for (std::uint64_t c = rng() % 5; c > 0; --c) cuts.push_back(rng() % (all.size() + 1));
    std::sort(cuts.begin(), cuts.end());
    std::vector<PlanSummary> parts;
    std::string rows;
    std::vector<std::uint64_t> moved;
    std::uint64_t first_row = 0;
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      const std::size_t lo = cuts[p], hi = cuts[p + 1];
      PartOptions po;
      po.place = o;
      po.place.threads = 1 + static_cast<unsigned>(p % 2);
      po.batch_size = batch_size;
      po.first_row = first_row;
      po.rows = true;
      const KeyLoads kl = loads ? KeyLoads{k.bytes.data() + lo, k.requests.data() + lo} : KeyLoads{};
      const PlanPart part = plan_part(a, b, KeyView{all.data, all.offsets + lo, hi - lo}, kl, po);
      rows += part.rows;
      for (auto m : part.moved) moved.push_back(lo + m);
      first_row += part.summary.rows;
      // What a part sends to the merge is its summary.json text.
      parts.push_back(parse_summary_json(summary_json(part.summary)));
      REQUIRE(summary_json(parts.back()) == summary_json(part.summary));
    }
    const PlanSummary merged = merge_summaries(a, b, o.replicas, batch_size, parts);
    REQUIRE(summary_json(merged) == summary_json(whole));
    REQUIRE(rows == whole_rows);

    std::vector<std::uint64_t> expected;
    for (std::size_t i = 0; i < all.size(); ++i)
      if (ids(a, all[i], o) != ids(b, all[i], o)) expected.push_back(i);
    REQUIRE(moved == expected);
  }
}

// Every file under `dir` (relative path -> bytes).
std::map<std::string, std::string> folder_files(const std::string& dir) {
  std::map<std::string, std::string> out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir))
    if (e.is_regular_file()) out[std::filesystem::relative(e.path(), dir).string()] = test::read_file(e.path().string());
  return out;
}

TEST_CASE("a plan of keys in memory writes the folder of the same keys' file", "[plan][parts]") {
  std::mt19937_64 rng(20261202);
  const ClusterView a(spec_of(rng, 3, 0, 5, true));
  const ClusterView b(spec_of(rng, 4, 1, 6, true));
  const Keys k = keys_of(test::tricky_keys(test::scaled(2000), rng(), true), rng);
  test::TempDir dir;
  std::string csv_text = "key,bytes,requests\n";
  for (std::size_t i = 0; i < k.batch.size(); ++i) {
    csv::append_field(csv_text, k.batch[i]);
    csv_text += "," + std::to_string(k.bytes[i]) + "," + std::to_string(k.requests[i]) + "\n";
  }
  const std::string keys_path = dir.write("keys.csv", csv_text);
  const KeysInMemory memory{k.batch.view(), {k.bytes.data(), k.requests.data()}};
  for (int variant = 0; variant < 4; ++variant) {
    CAPTURE(variant);
    PlanJob job;
    job.keys.path = keys_path;
    job.place.replicas = variant == 1 ? 2 : 1;
    job.batch_size = 7;
    job.transitions = true;
    if (variant == 2) job.limits.max_bytes_per_node = 3000, job.limits.node_bandwidth = 100;
    const std::string from_file = dir.file("file" + std::to_string(variant));
    const std::string in_memory = dir.file("memory" + std::to_string(variant));
    auto run = [&](const std::string& out, const KeysInMemory* keys) {
      PlanJob j = job;
      j.out_dir = out;
      j.memory = keys;
      if (variant != 3) return summary_json(run_plan(a, b, j));
      StagedPlanJob staged;
      staged.step = j;
      staged.max_moved_fraction = 0.3;
      staged.cap_by = CapBy::keys_and_bytes;
      staged.first_step_version = 1000;  // the views' versions leave no room between them
      return staged_summary_json(run_staged_plan(a, b, staged));
    };
    REQUIRE(run(in_memory, &memory) == run(from_file, nullptr));
    const auto expected = folder_files(from_file);
    REQUIRE(expected.count("transitions.csv") + expected.count("steps/01/transitions.csv") == 1);
    REQUIRE(folder_files(in_memory) == expected);
  }
}

TEST_CASE("merging refuses parts of another plan, no parts is the plan of no keys", "[plan][parts]") {
  std::mt19937_64 rng(7);
  const ClusterView a(spec_of(rng, 1, 0, 4, false));
  const ClusterView b(spec_of(rng, 2, 1, 4, false));
  const Keys k = keys_of({"x", "y", "z"}, rng);
  PartOptions po;
  const PlanPart part = plan_part(a, b, k.batch.view(), {}, po);

  const PlanSummary none = merge_summaries(a, b, 1, 1000, {});
  CHECK(none.read.keys == 0);
  CHECK(none.nodes.size() == 5);  // the union of n,0..n,4
  CHECK(none.ideal_fraction == Approx(0.25));

  auto refused = [&](const std::vector<PlanSummary>& parts, std::uint32_t r, const std::string& what) {
    try {
      merge_summaries(a, b, r, 1000, parts);
      FAIL("merged");
    } catch (const InputError& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  refused({part.summary}, 2, "plan part 0: has replicas 1 and batch size 1000, not 2 and 1000");
  const PlanPart reversed = plan_part(b, a, k.batch.view(), {}, po);
  refused({part.summary, reversed.summary}, 1, "plan part 1: plans v2 -> v1, not v1 -> v2");
  CHECK_THROWS_AS(parse_summary_json("{\"nodes\": 3}"), InputError);
  CHECK_THROWS_WITH(parse_summary_json(R"({"nodes": [], "from_version": 1, "to_version": 2,
      "replicas": 1, "batch_size": 1, "keys": 1, "moved": 2, "rows": 0, "batches": 0})"),
                    Catch::Contains("a part moves more than it holds"));
}

TEST_CASE("KeyView: keys read in place, a slice with offsets[0] > 0 included", "[placement][keys]") {
  std::mt19937_64 rng(3);
  const ClusterView view(spec_of(rng, 0, 0, 37, true));
  const auto keys = test::tricky_keys(test::scaled(20000), 11, true);
  KeyBatch batch;
  for (const auto& key : keys) batch.add(key);
  PlaceOptions o;
  o.replicas = 3;
  const Placement whole = place(view, batch, o);
  const BatchPlacer placer(view, o);
  const std::size_t lo = keys.size() / 3;
  const KeyView all = batch.view();
  const KeyView slice{all.data, all.offsets + lo, keys.size() - lo};
  REQUIRE(slice[0] == keys[lo]);
  Placement part;
  placer.place(slice, part);
  REQUIRE(part.size() == keys.size() - lo);
  REQUIRE(std::equal(part.nodes.begin(), part.nodes.end(), whole.nodes.begin() + static_cast<std::ptrdiff_t>(lo * 3)));
  Placement none;
  placer.place(KeyView{}, none);
  CHECK(none.size() == 0);
}

TEST_CASE("plan_part by validated requests plans what the options would, and reads no options",
          "[plan][parts][rule]") {
  std::mt19937_64 rng(11);
  const ClusterView a(spec_of(rng, 1, 0, 6, true));
  const ClusterView b(spec_of(rng, 2, 1, 6, false));
  std::vector<std::string> names;
  for (int i = 0; i < 500; ++i) names.push_back("key-" + std::to_string(rng() % 100000));
  const Keys k = keys_of(names, rng);
  PlaceOptions one, two;
  two.replicas = 2;
  two.distinct_label = "zone";
  PartOptions po;
  po.place = one;
  po.place_to = two;  // a migration of the rule (contract §8): 1 -> 2 distinct zone
  po.rows = true;
  po.batch_size = 7;
  const PlanPart by_options = plan_part(a, b, k.batch.view(), {k.bytes.data(), k.requests.data()}, po);

  const PlanRequests requests = options_for_plan(a, b, one, {}).with_threads(1);
  PartOptions ignored = po;
  ignored.place.replicas = 99;  // not read: the requests say how to place
  ignored.place_to.reset();
  const PlanRequests migrated{requests.from, validate_request(b, two)};
  CHECK_FALSE(migrated.same_rule());
  const PlanPart by_requests = plan_part(migrated, k.batch.view(), {k.bytes.data(), k.requests.data()}, ignored);
  CHECK(by_requests.moved == by_options.moved);
  CHECK(by_requests.rows == by_options.rows);
  CHECK(summary_json(by_requests.summary) == summary_json(by_options.summary));
  CHECK(by_requests.summary.from_replicas == 1);
  CHECK(by_requests.summary.replicas == 2);
  // options_for_plan validates: a replica count no view can hold is refused there, once.
  PlaceOptions too_many;
  too_many.replicas = 7;
  CHECK_THROWS_WITH(options_for_plan(a, b, too_many, {true, false, false}), Catch::Contains("exceeds the 6 node(s)"));
}
