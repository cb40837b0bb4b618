// Time estimates (--node-bandwidth), caps by keys and bytes at once, expected_fraction,
// place carrying bytes/requests, the SVG's node order and numbers (docs/plan.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/output.hpp"
#include "hrw/view_json.hpp"
#include "plan_specs.hpp"
#include "bulk_support.hpp"

using namespace hrw;

namespace {

ClusterSpec flat(int first, int count, std::int64_t version) {
  ClusterSpec s;
  s.version = version;
  for (int i = first; i < first + count; ++i) s.nodes.push_back({"node-" + std::to_string(i), std::nullopt, {}});
  return s;
}

std::string sized_keys(const test::TempDir& dir, int n) {
  std::string text = "key,bytes,requests\n";
  for (int i = 0; i < n; ++i) text += "user:" + std::to_string(i) + "," + std::to_string(1 + (i * 7919) % 5000) + "," + std::to_string(i % 3) + "\n";
  return dir.write("keys.csv", text);
}

}  // namespace

TEST_CASE("plan --node-bandwidth: each round lasts its busiest node's bytes / bandwidth, from moves.csv",
          "[plan][time]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(flat(0, 6, 1)));
  const std::string b = dir.write("b.json", view_json(flat(0, 8, 2)));
  const std::string keys = sized_keys(dir, 3000);
  const std::uint64_t bw = 12345;
  auto res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--max-moves-per-node", "40",
                            "--node-bandwidth", std::to_string(bw), "--out", dir.file("p")});
  REQUIRE(res.exit_code == 0);
  CHECK(std::count(res.err.begin(), res.err.end(), '\n') >= 1);
  CHECK(res.err.find("estimated time ") != std::string::npos);
  // Recomputed from the rows: per round, per node, bytes sent and received.
  std::map<std::uint64_t, std::map<std::string, std::pair<std::uint64_t, std::uint64_t>>> per;
  auto rows = test::parse_csv_file(dir.file("p/moves.csv"));
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::uint64_t round = std::stoull(rows[i][0]), bytes = std::stoull(rows[i][4]);
    per[round][rows[i][2]].first += bytes;
    per[round][rows[i][3]].second += bytes;
  }
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  const auto& rounds = summary["schedule"]["per_round"];
  REQUIRE(rounds.size() == per.size());
  double total = 0;
  for (const auto& r : rounds) {
    std::uint64_t busiest = 0;
    for (auto& [node, sr] : per[r["round"].get<std::uint64_t>()]) busiest = std::max({busiest, sr.first, sr.second});
    CHECK(r["estimated_seconds"].get<double>() == Approx(static_cast<double>(busiest) / bw));
    total += static_cast<double>(busiest) / bw;
  }
  CHECK(summary["estimated_seconds"].get<double>() == Approx(total));
  CHECK(summary["schedule"]["estimated_seconds"].get<double>() == Approx(total));

  // Refused without rounds and without bytes.
  res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--node-bandwidth", "10", "--out", dir.file("q")});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --node-bandwidth: estimates rounds: give --max-moves-per-node or --max-bytes-per-node\n");
  const std::string lines = dir.write("k.txt", "a\nb\n");
  res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", lines, "--node-bandwidth", "10",
                       "--max-moves-per-node", "3", "--out", dir.file("q")});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: " + lines + ": a node bandwidth needs a bytes column in the keys\n");
  res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--node-bandwidth", "0",
                       "--max-moves-per-node", "3", "--out", dir.file("q")});
  CHECK(res.exit_code == 2);
}

TEST_CASE("plan --cap-by keys,bytes: every step within both caps", "[plan][staged]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(flat(0, 6, 1)));
  const std::string b = dir.write("b.json", view_json(flat(0, 8, 100)));  // room for the steps' versions
  const std::string keys = sized_keys(dir, 3000);
  const auto res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--max-moved-fraction", "0.04",
                                  "--cap-by", "keys,bytes", "--out", dir.file("s"), "--quiet"});
  REQUIRE(res.exit_code == 0);
  const auto summary = nlohmann::json::parse(test::read_file(dir.file("s/summary.json")));
  CHECK(summary["cap_by"] == "keys,bytes");
  const std::uint64_t keys_total = summary["keys"], bytes_total = summary["bytes"];
  std::uint64_t moved = 0;
  for (const auto& step : summary["steps"]) {
    // Measured independently: the step's own summary.json.
    const auto s = nlohmann::json::parse(test::read_file(dir.file("s/" + step["dir"].get<std::string>() + "/summary.json")));
    CHECK(s["moved"].get<std::uint64_t>() <= static_cast<std::uint64_t>(0.04 * keys_total));
    CHECK(s["bytes_moved"].get<std::uint64_t>() <= static_cast<std::uint64_t>(0.04 * static_cast<double>(bytes_total)));
    moved += s["moved"].get<std::uint64_t>();
  }
  CHECK(moved == summary["direct_moved"].get<std::uint64_t>());
}

TEST_CASE("expected_fraction: 1 - W(A∩B)/W(A∪B) when no node is reweighted, and the measured fraction is near it",
          "[plan]") {
  test::TempDir dir;
  // 12 -> 13 nodes with one removed: 11 common of 14: 3/14.
  const std::string a = dir.write("a.json", view_json(flat(0, 12, 1)));
  const std::string b = dir.write("b.json", view_json(flat(1, 13, 2)));
  std::string text;
  for (int i = 0; i < 50000; ++i) text += "k" + std::to_string(i) + "\n";
  const std::string keys = dir.write("k.txt", text);
  auto res = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p")});
  REQUIRE(res.exit_code == 0);
  auto summary = nlohmann::json::parse(test::read_file(dir.file("p/summary.json")));
  CHECK(summary["expected_fraction"].get<double>() == Approx(3.0 / 14.0));
  CHECK(summary["moved_fraction"].get<double>() == Approx(3.0 / 14.0).margin(0.01));
  CHECK(res.err.find("expected for rendezvous 21.429%") != std::string::npos);
  // A reweight: no exact expectation, none reported.
  ClusterSpec w = flat(0, 12, 2);
  w.nodes[3].weight = 2.0;
  const std::string c = dir.write("c.json", view_json(w));
  REQUIRE(test::run_hrw({"plan", "--from", a, "--to", c, "--keys", keys, "--out", dir.file("q"), "--quiet"}).exit_code == 0);
  summary = nlohmann::json::parse(test::read_file(dir.file("q/summary.json")));
  CHECK_FALSE(summary.contains("expected_fraction"));
}

TEST_CASE("place carries bytes and requests, so its output feeds --from-placement with byte limits", "[place]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(flat(0, 4, 1)));
  const std::string b = dir.write("b.json", view_json(flat(0, 5, 2)));
  const std::string keys = sized_keys(dir, 500);
  REQUIRE(test::run_hrw({"place", "--cluster", a, "--keys", keys, "--out", dir.file("cur.csv"), "--quiet"}).exit_code == 0);
  const auto in = test::parse_csv_file(keys);
  const auto out = test::parse_csv_file(dir.file("cur.csv"));
  REQUIRE(out.size() == in.size());
  CHECK(out[0] == std::vector<std::string>{"key", "owner", "bytes", "requests"});
  for (std::size_t i = 1; i < out.size(); ++i) {
    CHECK(out[i][0] == in[i][0]);
    CHECK(out[i][2] == in[i][1]);
    CHECK(out[i][3] == in[i][2]);
  }
  const auto res = test::run_hrw({"plan", "--from-placement", dir.file("cur.csv"), "--to", b,
                                  "--max-bytes-per-node", "20000", "--out", dir.file("p"), "--quiet"});
  CHECK(res.exit_code == 0);
}

TEST_CASE("plan --svg: nodes in natural order, plain numbers with separators, load / target histogram", "[plan][svg]") {
  test::TempDir dir;
  const std::string a = dir.write("a.json", view_json(flat(0, 11, 1)));
  const std::string b = dir.write("b.json", view_json(flat(0, 12, 2)));
  std::string text;
  for (int i = 0; i < 120000; ++i) text += "k" + std::to_string(i) + "\n";
  const std::string keys = dir.write("k.txt", text);
  REQUIRE(test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p"), "--svg",
                         dir.file("p.svg"), "--quiet"}).exit_code == 0);
  const std::string svg = test::read_file(dir.file("p.svg"));
  CHECK(svg.find("e+0") == std::string::npos);
  CHECK(svg.find(",0") != std::string::npos);  // e.g. 10,0xx keys on a node
  const auto n2 = svg.find(">node-2<"), n10 = svg.find(">node-10<");
  REQUIRE(n2 != std::string::npos);
  REQUIRE(n10 != std::string::npos);
  CHECK(n2 < n10);
  CHECK(svg.find("(count)") != std::string::npos);
  // 30 nodes: the load panel is a histogram of load / target share.
  const std::string c = dir.write("c.json", view_json(flat(0, 30, 2)));
  REQUIRE(test::run_hrw({"plan", "--from", a, "--to", c, "--keys", keys, "--out", dir.file("q"), "--svg",
                         dir.file("q.svg"), "--quiet"}).exit_code == 0);
  CHECK(test::read_file(dir.file("q.svg")).find("load / target share") != std::string::npos);
}

TEST_CASE("plan time estimates print as h/min/s, in binary64 past 2^64 s", "[plan][bandwidth]") {
  CHECK(duration_text(59.94) == "59.9 s");
  CHECK(duration_text(61) == "1 min 1 s (61 s)");
  CHECK(duration_text(3599.6) == "1 h 0 min (3600 s)");
  CHECK(duration_text(7322) == "2 h 2 min (7322 s)");
  // Two rounds of 2^64 - 1 bytes at 1 byte/s: an integer cast once wrapped it to 0 h 0 min.
  const double beyond = 2 * 18446744073709551615.0;
  CHECK(duration_text(beyond) == "10248191152060862 h 52 min (36893488147419103232 s)");
}
