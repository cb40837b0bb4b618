// Rounds under per-node limits (docs/plan.md): limits never exceeded, unit rounds optimal,
// every move of the direct plan exactly once, input order inside a round.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/plan.hpp"
#include "plan/byte_rounds.hpp"
#include "plan/unit_rounds.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;

namespace {

struct Row {
  std::uint64_t round;
  std::string key, from, to;
  std::uint64_t bytes;
};

std::vector<Row> read_moves(const std::string& path, bool with_bytes) {
  const auto rows = test::parse_csv_file(path);
  REQUIRE(!rows.empty());
  CHECK(rows[0].size() == (with_bytes ? 5u : 4u));
  std::vector<Row> out;
  for (std::size_t i = 1; i < rows.size(); ++i)
    out.push_back({std::stoull(rows[i][0]), rows[i][1], rows[i][2], rows[i][3],
                   with_bytes ? std::stoull(rows[i][4]) : 0});
  return out;
}

std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }

// Every scheduled row is a direct row, each direct row appears once, rows of a round keep
// the direct plan's (input) order, and no node sends or receives more than the limits.
void check_schedule(const std::vector<Row>& direct, const std::vector<Row>& rounds,
                    const ScheduleLimits& limits, const nlohmann::json& schedule) {
  REQUIRE(rounds.size() == direct.size());
  // The i-th occurrence of a (key, from, to) in the schedule is the i-th in the direct plan.
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::size_t>> where;
  for (std::size_t i = 0; i < direct.size(); ++i)
    where[{direct[i].key, direct[i].from, direct[i].to}].push_back(i);
  std::map<std::tuple<std::string, std::string, std::string>, std::size_t> seen;
  std::vector<bool> used(direct.size(), false);
  std::uint64_t round = 0, last_index = 0, oversize = 0;
  std::map<std::string, std::uint64_t> sent, received, sent_bytes, received_bytes;
  std::uint64_t max_round = 0;
  auto check_round = [&] {
    for (auto& [node, n] : sent) {
      if (limits.max_moves_per_node) CHECK(n <= *limits.max_moves_per_node);
      if (limits.max_bytes_per_node && sent_bytes[node] > *limits.max_bytes_per_node) CHECK(n == 1);
    }
    for (auto& [node, n] : received) {
      if (limits.max_moves_per_node) CHECK(n <= *limits.max_moves_per_node);
      if (limits.max_bytes_per_node && received_bytes[node] > *limits.max_bytes_per_node) CHECK(n == 1);
    }
    sent.clear(), received.clear(), sent_bytes.clear(), received_bytes.clear();
  };
  for (const Row& r : rounds) {
    REQUIRE(r.round >= round);
    if (r.round != round) {
      check_round();
      round = r.round;
      last_index = 0;
    }
    const auto t = std::make_tuple(r.key, r.from, r.to);
    auto& list = where[t];
    const std::size_t k = seen[t]++;
    REQUIRE(k < list.size());
    const std::size_t index = list[k];
    CHECK_FALSE(used[index]);
    used[index] = true;
    CHECK(direct[index].bytes == r.bytes);
    if (last_index) CHECK(index + 1 > last_index);
    last_index = index + 1;
    ++sent[r.from], ++received[r.to];
    sent_bytes[r.from] += r.bytes, received_bytes[r.to] += r.bytes;
    if (limits.max_bytes_per_node && r.bytes > *limits.max_bytes_per_node) ++oversize;
    max_round = std::max(max_round, r.round);
  }
  check_round();
  CHECK(schedule["rounds"] == max_round);
  CHECK(schedule["per_round"].size() == max_round);
  CHECK(schedule["oversize_keys"] == oversize);
  CHECK(schedule["rounds"].get<std::uint64_t>() >= schedule["lower_bound"].get<std::uint64_t>());
  std::uint64_t total = 0;
  for (auto& pr : schedule["per_round"]) {
    total += pr["moves"].get<std::uint64_t>();
    if (limits.max_moves_per_node) {
      CHECK(pr["peak_send"] <= *limits.max_moves_per_node);
      CHECK(pr["peak_receive"] <= *limits.max_moves_per_node);
    }
  }
  CHECK(total == direct.size());
}

}  // namespace

TEST_CASE("unit rounds: ⌈Δ/K⌉ on random multigraphs, at most K per node per round", "[plan][schedule]") {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 200; ++round) {
    const std::size_t n = 2 + rng() % 12;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::uint64_t> counts;
    const int pairs = 1 + static_cast<int>(rng() % (n * 3));
    for (int p = 0; p < pairs; ++p) {
      const auto u = static_cast<std::uint32_t>(rng() % n), v = static_cast<std::uint32_t>(rng() % n);
      if (u != v) counts[{u, v}] += 1 + rng() % (round % 3 == 0 ? 2000 : 20);
    }
    std::vector<plan_detail::PairCount> list;
    std::vector<std::uint64_t> out(n), in(n);
    for (auto& [uv, c] : counts) {
      list.push_back({uv.first, uv.second, c});
      out[uv.first] += c, in[uv.second] += c;
    }
    std::uint64_t delta = 0;
    for (std::size_t v = 0; v < n; ++v) delta = std::max({delta, out[v], in[v]});
    const std::uint64_t k = 1 + rng() % (round % 2 ? 5 : 300);
    plan_detail::UnitRounds rounds(n, list, k);
    CHECK(rounds.max_degree() == delta);
    CHECK(rounds.rounds() == ceil_div(delta, k));
    std::map<std::uint64_t, std::vector<std::uint64_t>> send, receive;  // round -> per node
    // Moves of different pairs interleaved, as input order would.
    std::vector<std::size_t> left;
    for (std::size_t p = 0; p < list.size(); ++p) left.insert(left.end(), list[p].count, p);
    std::shuffle(left.begin(), left.end(), rng);
    for (std::size_t p : left) {
      const std::uint64_t r = rounds.next_round(p);
      REQUIRE(r < rounds.rounds());
      auto& s = send[r];
      auto& d = receive[r];
      s.resize(n), d.resize(n);
      CHECK(++s[list[p].from] <= k);
      CHECK(++d[list[p].to] <= k);
    }
  }
}

TEST_CASE("byte rounds: a key larger than B takes the first round free for both its nodes", "[plan][schedule]") {
  plan_detail::ByteRounds rounds(6, 10, std::nullopt);
  CHECK(rounds.place(0, 1, 5) == 0);
  CHECK(rounds.place(0, 1, 6) == 1);   // 11 > B in round 0
  CHECK(rounds.place(2, 3, 50) == 0);  // nodes 2 and 3 do nothing in round 0
  CHECK(rounds.place(0, 2, 50) == 2);  // node 0 sends in rounds 0 and 1
  CHECK(rounds.place(1, 3, 50) == 2);  // node 1 receives in 0 and 1, node 3 is busy in 0
  CHECK(rounds.place(4, 5, 50) == 0);
  CHECK(rounds.place(4, 2, 1) == 1);   // round 0 is node 4's oversize key's alone
  CHECK(rounds.place(3, 5, 3) == 1);
  CHECK(rounds.rounds() == 3);
  CHECK(rounds.oversize() == 4);
  // Every key larger than B: each round holds disjoint pairs, the earliest that is free.
  plan_detail::ByteRounds big(4, 1, std::nullopt);
  CHECK(big.place(0, 1, 2) == 0);
  CHECK(big.place(2, 3, 2) == 0);
  CHECK(big.place(1, 2, 2) == 1);
  CHECK(big.place(0, 3, 2) == 1);
  CHECK(big.place(0, 1, 2) == 2);
}

TEST_CASE("rounds under per-node limits on random plans", "[plan][schedule]") {
  std::mt19937_64 rng(17);
  test::TempDir dir;
  // Unique keys, so that a row of the schedule names one row of the direct plan.
  std::vector<std::string> keys;
  for (auto& k : test::tricky_keys(test::scaled(1200, test::kEmulatedScale), 41, true))
    if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
  std::lognormal_distribution<double> size(8.0, 1.5);
  std::vector<std::uint64_t> bytes;
  std::string with_bytes = "key,bytes\n", keys_only = "key\n";
  for (auto& k : keys) {
    bytes.push_back(static_cast<std::uint64_t>(size(rng)));
    with_bytes += csv::quoted(k) + "," + std::to_string(bytes.back()) + "\n";
    keys_only += csv::quoted(k) + "\n";
  }
  const std::string sized_input = dir.write("sized.csv", with_bytes);
  const std::string plain_input = dir.write("plain.csv", keys_only);
  for (int round = 0; round < 8; ++round) {
    const ClusterView a(test::make_spec(6 + round % 4, round % 2, round));
    const ClusterView b(test::mutate(test::make_spec(6 + round % 4, round % 2, round), rng, 1 + round % 3));
    for (std::uint32_t r : {1u, 3u})
      for (bool sized : {false, true}) {
        PlanJob job;
        job.keys = {sized ? sized_input : plain_input, std::nullopt, 1 + rng() % 500, std::nullopt, {}};
        job.place.replicas = r;
        if (r > 1) job.place.distinct_label = "zone", job.place.allow_partial = true;
        job.out_dir = dir.file("direct");
        run_plan(a, b, job);
        const auto direct = read_moves(dir.file("direct/moves.csv"), sized);
        if (direct.empty()) continue;
        std::map<std::string, std::uint64_t> out, in, out_bytes, in_bytes;
        for (const Row& m : direct)
          ++out[m.from], ++in[m.to], out_bytes[m.from] += m.bytes, in_bytes[m.to] += m.bytes;
        std::uint64_t delta = 0, heaviest = 0;  // heaviest: bytes, oversize keys included
        for (auto& [id, c] : out) delta = std::max(delta, c), heaviest = std::max(heaviest, out_bytes[id]);
        for (auto& [id, c] : in) delta = std::max(delta, c), heaviest = std::max(heaviest, in_bytes[id]);

        std::vector<ScheduleLimits> cases = {{1 + rng() % 40, std::nullopt, std::nullopt},
                                             {1, std::nullopt, std::nullopt}};
        if (sized) {
          const std::uint64_t b_limit = std::max<std::uint64_t>(1, heaviest / (2 + rng() % 30));
          cases.push_back({std::nullopt, b_limit, std::nullopt});
          cases.push_back({1 + rng() % 40, b_limit, std::nullopt});
        }
        for (const ScheduleLimits& limits : cases) {
          job.limits = limits;
          job.out_dir = dir.file("rounds");
          const PlanSummary s = run_plan(a, b, job);
          REQUIRE(s.schedule);
          const auto summary = nlohmann::json::parse(test::read_file(dir.file("rounds/summary.json")));
          check_schedule(direct, read_moves(dir.file("rounds/moves.csv"), sized), limits, summary["schedule"]);
          if (limits.max_moves_per_node && !limits.max_bytes_per_node) {
            CHECK(s.schedule->rounds == ceil_div(delta, *limits.max_moves_per_node));
            CHECK(s.schedule->lower_bound == s.schedule->rounds);
          }
          if (limits.max_bytes_per_node && s.schedule->oversize_keys == 0)
            CHECK(s.schedule->byte_bound == ceil_div(heaviest, *limits.max_bytes_per_node));
          CHECK(summary["schedule"]["max_moves_per_node"] ==
                (limits.max_moves_per_node ? nlohmann::json(*limits.max_moves_per_node) : nlohmann::json()));
        }
      }
  }
}

TEST_CASE("hrw plan: bad per-node limits exit 2 with one line", "[cli][schedule][errors]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": [{"id": "a"}, {"id": "b"}]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": [{"id": "a"}, {"id": "c"}]})");
  const std::string keys = dir.write("k.txt", "x\ny\nz\n");
  const std::string sized = dir.write("k.csv", "key,bytes\nx,1\ny,2\n");
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--keys", keys, "--max-moves-per-node", "0"},
       "hrw: --max-moves-per-node: must be an integer from 1 to 18446744073709551615, got \"0\""},
      {{"--keys", sized, "--max-bytes-per-node", "0"},
       "hrw: --max-bytes-per-node: must be an integer from 1 to 18446744073709551615, got \"0\""},
      {{"--keys", keys, "--max-bytes-per-node", "10"},  // no bytes column
       "k.txt: a per-node byte limit needs a bytes column in the keys"},
      {{"--keys", keys, "--max-moves-per-node", "-1"},
       "hrw: --max-moves-per-node: must be an integer from 1 to 18446744073709551615, got \"-1\""}};
  for (const auto& [args, message] : cases) {
    std::vector<std::string> cmd = {"plan", "--from", a, "--to", b, "--out", dir.file("p")};
    cmd.insert(cmd.end(), args.begin(), args.end());
    const auto res = test::run_hrw(cmd);
    INFO(res.err);
    CHECK(res.exit_code == 2);
    CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    CHECK(res.err.find(message) != std::string::npos);
  }
}
