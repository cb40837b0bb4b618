// Plan accounting and results against the scalar reference (library level, in-process).
#include <catch2/catch.hpp>

#include <functional>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/output.hpp"
#include "hrw/reference.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"
#include "plan/plan_builder.hpp"
#include "output/move_rows.hpp"

using namespace hrw;
using hrw::test::make_spec;
using hrw::test::mutate;

namespace {

KeyChunk chunk_of(const std::vector<std::string>& keys, std::mt19937_64& rng) {
  KeyChunk c;
  for (auto& k : keys) {
    c.keys.add(k);
    c.bytes.push_back(rng() % 1000);
    c.requests.push_back(rng() % 7);
  }
  return c;
}

std::set<std::string> replica_ids(const ClusterView& v, std::string_view key, std::uint32_t r,
                                  const std::string& label) {
  std::vector<std::uint32_t> nodes = label.empty() ? reference::top_r(v, key, r)
                                                   : reference::top_r_distinct(v, key, r, label, true).nodes;
  std::set<std::string> ids;
  for (auto n : nodes) ids.insert(v.node(n).id);
  return ids;
}

void check_invariants(const PlanSummary& s, std::uint64_t keys) {
  CHECK(s.read.keys == keys);
  CHECK(s.moved.keys + s.stayed.keys == keys);
  CHECK(s.moved.bytes + s.stayed.bytes == s.read.bytes);
  LoadCounts in, out;
  for (auto& f : s.nodes) {
    CHECK(f.before.keys - f.out.keys + f.in.keys == f.after.keys);
    CHECK(f.before.bytes - f.out.bytes + f.in.bytes == f.after.bytes);
    CHECK(f.before.requests - f.out.requests + f.in.requests == f.after.requests);
    in += f.in;
    out += f.out;
  }
  if (s.replicas == 1) {
    CHECK(in == s.moved);
    CHECK(out == s.moved);
  }
  CHECK(in.keys == s.rows);
}

}  // namespace

TEST_CASE("plans equal the reference on random view changes", "[plan]") {
  std::mt19937_64 rng(42);
  const auto keys = test::tricky_keys(test::scaled(1500, hrw::test::kEmulatedScale), 3, true);
  for (int round = 0; round < 12; ++round) {
    const bool weighted = round % 2;
    const ClusterView a(make_spec(6 + round % 5, weighted, round));
    const ClusterView b(mutate(make_spec(6 + round % 5, weighted, round), rng, 1 + round % 3));
    for (std::uint32_t r : {1u, 2u, 3u}) {
      const std::string label = (round % 3 == 0 && r > 1) ? "zone" : "";
      PlaceOptions o;
      o.replicas = r;
      o.distinct_label = label;
      o.allow_partial = true;
      const KeyChunk chunk = chunk_of(keys, rng);
      const Placement pa = place(a, chunk.keys, o), pb = place(b, chunk.keys, o);
      PlanBuilder builder(a, b, r, 100);
      std::string rows;
      const MoveCsv csv(builder.ids(), false, false);
      BatchedMoveRows sink(csv, 100, rows);
      builder.add(chunk, pa, pb, &sink);
      const PlanSummary s = builder.finish(keys.size(), true, true);
      check_invariants(s, keys.size());

      // Keys only (no bytes/requests), the pipeline's way: chunks of random sizes in one
      // reused ChunkWork, digested (counted on the placing thread) and then added in order.
      // A second builder digests with the sink's row format (the rows rendered on the
      // placing thread, batches added in order): the same rows.
      PlanBuilder by_chunks(a, b, r, 100), by_rendered(a, b, r, 100);
      std::string chunk_rows, rendered_rows;
      BatchedMoveRows chunk_sink(csv, 100, chunk_rows), rendered_sink(csv, 100, rendered_rows);
      REQUIRE(rendered_sink.row_format() == &csv);
      ChunkWork work;
      PlanChunk counted, rendered;
      for (std::size_t lo = 0; lo < keys.size();) {
        const std::size_t hi = std::min(keys.size(), lo + 1 + rng() % 400);
        work.chunk.clear();
        for (std::size_t i = lo; i < hi; ++i) work.chunk.keys.add(keys[i]);
        work.placements = {place(a, work.chunk.keys, o), place(b, work.chunk.keys, o)};
        by_chunks.digest(work, counted);
        by_chunks.add(work, counted, &chunk_sink);
        by_rendered.digest(work, rendered, rendered_sink.row_format());
        if (r == 1) CHECK(rendered.row_ends.size() == rendered.counts.back());  // one row per moved key
        by_rendered.add(work, rendered, &rendered_sink);
        lo = hi;
      }
      CHECK(rendered_rows == rows);
      const PlanSummary sk = by_chunks.finish(keys.size(), false, false);
      check_invariants(sk, keys.size());
      CHECK(sk.moved.keys == s.moved.keys);
      CHECK(sk.rows == s.rows);
      CHECK(chunk_rows == rows);
      for (std::size_t n = 0; n < s.nodes.size(); ++n) {
        CHECK(sk.nodes[n].before.keys == s.nodes[n].before.keys);
        CHECK(sk.nodes[n].after.keys == s.nodes[n].after.keys);
        CHECK(sk.nodes[n].in.keys == s.nodes[n].in.keys);
        CHECK(sk.nodes[n].out.keys == s.nodes[n].out.keys);
      }

      // Expected rows from the reference, in input order.
      std::string expected;
      std::uint64_t row = 0, moved = 0;
      for (auto& k : keys) {
        const auto sa = replica_ids(a, k, r, label), sb = replica_ids(b, k, r, label);
        if (sa == sb) continue;
        ++moved;
        if (r == 1) {
          expected += std::to_string(row++ / 100 + 1) + "," + csv::quoted(k) + "," +
                      csv::quoted(*sa.begin()) + "," + csv::quoted(*sb.begin()) + "\n";
          continue;
        }
        for (auto& id : sb)
          if (!sa.count(id)) ++row;
      }
      CHECK(s.moved.keys == moved);
      CHECK(s.rows == row);
      if (r == 1) CHECK(rows == expected);
    }
  }
}

TEST_CASE("R > 1 rows: the new holder, copied from the best-ranked keeper in A", "[plan]") {
  const ClusterView a(make_spec(8, false, 1));
  ClusterSpec bs = make_spec(8, false, 2);
  bs.nodes.erase(bs.nodes.begin() + 3);
  const ClusterView b(bs);
  const auto keys = test::tricky_keys(500, 5, true);
  std::mt19937_64 rng(1);
  const KeyChunk chunk = chunk_of(keys, rng);
  PlaceOptions o;
  o.replicas = 3;
  PlanBuilder builder(a, b, 3, 1000);
  std::string rows;
  const MoveCsv csv(builder.ids(), false, false);
  BatchedMoveRows sink(csv, 1000, rows);
  builder.add(chunk, place(a, chunk.keys, o), place(b, chunk.keys, o), &sink);
  check_invariants(builder.finish(keys.size(), true, true), keys.size());
  test::TempDir dir;
  const auto parsed = test::parse_csv_file(dir.write("m.csv", rows));
  std::size_t next = 0;
  for (auto& k : keys) {
    const auto ra = reference::top_r(a, k, 3), rb = reference::top_r(b, k, 3);
    std::string source = a.node(ra[0]).id;
    for (auto n : ra)
      if (std::count_if(rb.begin(), rb.end(), [&](auto m) { return b.node(m).id == a.node(n).id; })) {
        source = a.node(n).id;
        break;
      }
    for (auto m : rb) {
      if (std::count_if(ra.begin(), ra.end(), [&](auto n) { return a.node(n).id == b.node(m).id; })) continue;
      REQUIRE(next < parsed.size());
      CHECK(parsed[next] == std::vector<std::string>{"1", k, source, b.node(m).id});
      ++next;
    }
  }
  CHECK(next == parsed.size());
}

TEST_CASE("ideal fraction: total variation distance of the shares", "[plan]") {
  CHECK(ideal_fraction(ClusterView(make_spec(10, false, 1)), ClusterView(make_spec(11, false, 2))) ==
        Approx(1.0 / 11));
  // A: a 1, b 1, c 2 -> .25 .25 .5 ; B: a 1, b 3, d 1 -> .2 .6 .2 (c absent, d new).
  ClusterSpec sa, sb;
  sa.nodes = {{"a", 1.0, {}}, {"b", 1.0, {}}, {"c", 2.0, {}}};
  sb.nodes = {{"a", 1.0, {}}, {"b", 3.0, {}}, {"d", 1.0, {}}};
  CHECK(ideal_fraction(ClusterView(sa), ClusterView(sb)) == Approx((0.05 + 0.35 + 0.5 + 0.2) / 2));
  CHECK(ideal_fraction(ClusterView(sa), ClusterView(sa)) == 0.0);
}

TEST_CASE("adding one node to ten moves about 1/11 of the keys", "[plan][slow]") {
  const std::size_t n = test::scaled(1'000'000, hrw::test::kEmulatedScale);
  const ClusterView a(make_spec(10, false, 1)), b(make_spec(11, false, 2));
  KeyChunk chunk;
  for (std::size_t i = 0; i < n; ++i) chunk.keys.add("user:" + std::to_string(i));
  PlanBuilder builder(a, b, 1, 1000);
  builder.add(chunk, place(a, chunk.keys, {}), place(b, chunk.keys, {}), nullptr);
  const PlanSummary s = builder.finish(n, false, false);
  check_invariants(s, n);
  // ±0.5 percentage points at full scale (the sampling sd there is 0.03 points).
  CHECK(std::abs(s.moved_fraction() - 1.0 / 11) < (n >= 1'000'000 ? 0.005 : 0.02));
  for (auto& f : s.nodes) {
    if (f.id == "node-10") CHECK(f.out.keys == 0);
    else CHECK(f.in.keys == 0);  // keys only flow to the new node
  }
}

TEST_CASE("chunk size and thread count do not change place or plan outputs", "[plan][stream]") {
  test::TempDir dir;
  const auto keys = test::tricky_keys(test::scaled(3000, hrw::test::kEmulatedScale), 9, true);
  std::string text = "key,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) text += hrw::csv::quoted(keys[i]) + "," + std::to_string(i) + "\n";
  const std::string input = dir.write("keys.csv", text);
  const ClusterView a(make_spec(7, true, 1));
  std::mt19937_64 rng(5);
  const ClusterView b(mutate(make_spec(7, true, 1), rng, 2));
  std::string first_moves, first_summary, first_place;
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{10000}, kDefaultChunkKeys}) {
    for (unsigned threads : {0u, 1u, 3u}) {
      PlanJob job;
      job.keys = {input, std::nullopt, chunk, std::nullopt, {}};
      job.place.replicas = 2;
      job.place.threads = threads;
      job.batch_size = 10;
      job.out_dir = dir.file("plan");
      const PlanSummary s = run_plan(a, b, job);
      check_invariants(s, keys.size());
      PlaceJob pj;
      pj.keys = job.keys;
      pj.place = job.place;
      pj.out = dir.file("place.csv");
      bool hb = false, hr = false;
      CHECK(run_place(a, pj, hb, hr).read().keys == keys.size());
      CHECK(hb);
      CHECK_FALSE(hr);
      const auto moves = test::read_file(dir.file("plan/moves.csv"));
      const auto summary = test::read_file(dir.file("plan/summary.json"));
      const auto placed = test::read_file(dir.file("place.csv"));
      if (first_moves.empty()) {
        first_moves = moves, first_summary = summary, first_place = placed;
      } else {
        CHECK(moves == first_moves);
        CHECK(summary == first_summary);
        CHECK(placed == first_place);
      }
    }
  }
  const auto sj = nlohmann::json::parse(first_summary);
  CHECK(sj["keys"] == keys.size());
  CHECK(sj["nodes"][0].contains("bytes_in"));
  CHECK_FALSE(sj["nodes"][0].contains("requests_in"));
}

// The keys-only R = 1 plan (counted in the pipeline's digest step) through lines input:
// the same files for every chunk size and thread count, and the rows the reference gives.
TEST_CASE("lines input, R = 1: chunking and threads do not change the plan", "[plan][stream]") {
  test::TempDir dir;
  std::vector<std::string> keys;
  for (auto& k : test::tricky_keys(test::scaled(3000, hrw::test::kEmulatedScale), 21, false))
    if (k.find('\n') == std::string::npos && (k.empty() || k.back() != '\r')) keys.push_back(k);
  std::string text;
  for (auto& k : keys) text += k + "\n";
  const std::string input = dir.write("keys.txt", text);
  const ClusterView a(make_spec(9, false, 2));
  std::mt19937_64 rng(8);
  const ClusterView b(mutate(make_spec(9, false, 2), rng, 2));
  std::string expected = "batch,key,from,to\n";
  std::uint64_t row = 0;
  for (auto& k : keys) {
    const std::string from = a.node(reference::owner(a, k)).id, to = b.node(reference::owner(b, k)).id;
    if (from != to)
      expected += std::to_string(row++ / 10 + 1) + "," + csv::quoted(k) + "," + csv::quoted(from) +
                  "," + csv::quoted(to) + "\n";
  }
  REQUIRE(row > 0);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{10000}, kDefaultChunkKeys})
    for (unsigned threads : {0u, 1u, 3u}) {
      PlanJob job;
      job.keys = {input, std::nullopt, chunk, std::nullopt, {}};
      job.place.threads = threads;
      job.batch_size = 10;
      job.out_dir = dir.file("plan");
      check_invariants(run_plan(a, b, job), keys.size());
      CHECK(test::read_file(dir.file("plan/moves.csv")) == expected);
    }
}

// The rows of a plan are written by the pipeline's threads in pieces of at least 64 KiB,
// each at the place the in-order step reserved (PlanOutputs::take): with many pieces the
// files are those of the reference's rows, for every thread count and chunk size, and the
// transitions the same for all.
TEST_CASE("plan rows written in reserved pieces: the files of one in-order write", "[plan][stream]") {
  test::TempDir dir;
  std::string text;
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < 100000; ++i) keys.push_back("object/" + std::to_string(i * 7919 % 1000003));
  for (auto& k : keys) text += k + "\n";
  const std::string input = dir.write("keys.txt", text);
  const ClusterView a(make_spec(2, false, 1));
  const ClusterView b(make_spec(3, false, 1));  // a node joins: a third of the keys move
  std::string expected = "batch,key,from,to\n";
  std::uint64_t row = 0;
  for (auto& k : keys) {
    const std::string from = a.node(reference::owner(a, k)).id, to = b.node(reference::owner(b, k)).id;
    if (from != to)
      expected += std::to_string(row++ / 100 + 1) + "," + csv::quoted(k) + "," + csv::quoted(from) + "," +
                  csv::quoted(to) + "\n";
  }
  REQUIRE(expected.size() > 3 * (std::size_t{1} << 18));  // several pieces
  std::string first_transitions;
  for (std::size_t chunk : {std::size_t{1}, std::size_t{999}, kDefaultChunkKeys})
    for (unsigned threads : {1u, 2u, 3u}) {
      INFO("chunk " << chunk << ", threads " << threads);
      PlanJob job;
      job.keys = {input, std::nullopt, chunk, std::nullopt, {}};
      job.place.threads = threads;
      job.batch_size = 100;
      job.transitions = true;
      job.out_dir = dir.file("plan");
      check_invariants(run_plan(a, b, job), keys.size());
      CHECK(test::read_file(dir.file("plan/moves.csv")) == expected);
      const std::string transitions = test::read_file(dir.file("plan/transitions.csv"));
      if (first_transitions.empty()) first_transitions = transitions;
      CHECK(transitions == first_transitions);
    }
  CHECK(first_transitions.size() > 3 * (std::size_t{1} << 18));
}

// check_invariants above restates what finish() checks and runs only when finish passed:
// this drives finish's failure path with counts corrupted the way a counting bug would.
TEST_CASE("PlanBuilder::finish refuses accounting that does not add up", "[plan]") {
  const ClusterView a(make_spec(6, false, 1));
  ClusterSpec bs = make_spec(6, false, 1);
  bs.nodes.pop_back();  // a node leaves: some keys move
  const ClusterView b(bs);
  const auto keys = test::tricky_keys(300, 9, true);
  const PlaceOptions o;
  const std::size_t u = 6;  // ids in the union of the views
  ChunkWork work;
  for (auto& k : keys) work.chunk.keys.add(k);
  work.placements = {place(a, work.chunk.keys, o), place(b, work.chunk.keys, o)};
  auto digested = [&](const PlanBuilder& builder) {
    PlanChunk state;
    builder.digest(work, state);
    // before, after, stayed, out, in per node; stayed; moved
    REQUIRE(state.counts.size() == 5 * u + 2);
    REQUIRE(state.counts[5 * u + 1] > 0);
    return state;
  };
  struct Corruption {
    const char* name;
    std::function<void(PlanChunk&)> apply;
    std::uint64_t keys_read;
    const char* message;
  };
  const std::vector<Corruption> cases = {
      {"none", [](PlanChunk&) {}, keys.size(), nullptr},
      {"keys read", [](PlanChunk&) {}, keys.size() + 1, "301 keys read but 300 accounted for"},
      {"stayed total", [&](PlanChunk& w) { ++w.counts[5 * u]; }, keys.size(), "!= read 300"},
      {"node before", [&](PlanChunk& w) { ++w.counts[0]; }, keys.size(), "node "},
      {"node stayed", [&](PlanChunk& w) { --w.counts[2 * u + 1]; }, keys.size(), "node "},
      {"node out", [&](PlanChunk& w) { ++w.counts[3 * u + 5]; }, keys.size(), "node "},
      {"node in", [&](PlanChunk& w) { --w.counts[4 * u]; }, keys.size(), "node "},
  };
  for (const Corruption& c : cases) {
    INFO(c.name);
    PlanBuilder builder(a, b, 1, 100);
    PlanChunk state = digested(builder);
    c.apply(state);
    builder.add(work, state, nullptr);
    if (!c.message) {
      CHECK_NOTHROW(builder.finish(c.keys_read, false, false));
      continue;
    }
    CHECK_THROWS_AS(builder.finish(c.keys_read, false, false), std::logic_error);
    CHECK_THROWS_WITH(builder.finish(c.keys_read, false, false),
                      Catch::Matchers::StartsWith("plan accounting check failed: ") &&
                          Catch::Matchers::Contains(c.message));
  }
}
