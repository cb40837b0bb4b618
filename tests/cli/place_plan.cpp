// hrw place / plan / sample through the real binary: outputs against the reference, every
// bad input (exit 2, file and line), all-or-nothing outputs under SIGINT and a full disk.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/plan.hpp"
#include "hrw/reference.hpp"
#include "bulk_support.hpp"

using hrw::test::names;
using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;

namespace {

const char* kFrom = R"({"version": 3, "nodes": [
  {"id": "a", "zone": "z1"}, {"id": "b", "zone": "z1"}, {"id": "c,x", "zone": "z2"},
  {"id": "d", "zone": "z2"}, {"id": "e", "zone": "z3"}, {"id": "f"}]})";
const char* kTo = R"({"version": 4, "nodes": [
  {"id": "a", "zone": "z1", "weight": 2}, {"id": "b", "zone": "z2"}, {"id": "c,x", "zone": "z2"},
  {"id": "e", "zone": "z3"}, {"id": "f"}, {"id": "g", "zone": "z4", "weight": 0.5}]})";

std::string csv_of(const std::vector<std::string>& keys) {
  std::string text = "key\n";
  for (auto& k : keys) text += hrw::csv::quoted(k) + "\n";
  return text;
}

std::vector<std::string> ids(const hrw::ClusterView& v, const std::vector<std::uint32_t>& nodes,
                             std::uint32_t r) {
  std::vector<std::string> out;
  for (auto n : nodes) out.push_back(v.node(n).id);
  out.resize(r);  // partial: empty cells
  return out;
}

}  // namespace

TEST_CASE("hrw place equals the reference for tricky CSV keys", "[cli][place]") {
  TempDir dir;
  const auto keys = hrw::test::tricky_keys(hrw::test::scaled(400, hrw::test::kEmulatedScale), 21, true);
  const std::string cluster = dir.write("c.json", kFrom), input = dir.write("k.csv", csv_of(keys));
  const hrw::ClusterView view(hrw::load_cluster_file(cluster));
  struct Case { std::uint32_t r; std::string label; };
  for (const Case& c : {Case{1, ""}, Case{3, ""}, Case{4, "zone"}}) {
    std::vector<std::string> args = {"place", "--cluster", cluster, "--keys", input,
                                     "--replicas", std::to_string(c.r), "--out", dir.file("o.csv"),
                                     "--stats", dir.file("s.json"), "--chunk-size", "7"};
    if (!c.label.empty()) args.insert(args.end(), {"--distinct", c.label, "--partial"});
    const auto res = run_hrw(args);
    REQUIRE(res.exit_code == 0);
    CHECK_THAT(res.err, Contains("peak-to-mean"));
    const auto rows = hrw::test::parse_csv_file(dir.file("o.csv"));
    REQUIRE(rows.size() == keys.size() + 1);
    CHECK(rows[0][0] == "key");
    CHECK(rows[0].size() == c.r + 1);
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto expected = c.label.empty()
          ? ids(view, hrw::reference::top_r(view, keys[i], c.r), c.r)
          : ids(view, hrw::reference::top_r_distinct(view, keys[i], c.r, c.label, true).nodes, c.r);
      REQUIRE(rows[i + 1][0] == keys[i]);
      REQUIRE(std::vector<std::string>(rows[i + 1].begin() + 1, rows[i + 1].end()) == expected);
    }
    const auto stats = nlohmann::json::parse(hrw::test::read_file(dir.file("s.json")));
    CHECK(stats["keys"] == keys.size());
    std::uint64_t sum = 0;
    for (auto& n : stats["nodes"]) sum += n["keys"].get<std::uint64_t>();
    CHECK(sum == keys.size());
  }
}

TEST_CASE("hrw place reads lines from stdin and writes stdout", "[cli][place]") {
  TempDir dir;
  const std::string cluster = dir.write("c.json", kFrom);
  const auto res = run_hrw({"place", "--cluster", cluster, "--keys", "-"}, "x\r\n\ny,z\n\xff");
  REQUIRE(res.exit_code == 0);
  const hrw::ClusterView view(hrw::load_cluster_file(cluster));
  std::string expected = "key,owner\n";
  for (std::string k : {"x", "", "y,z", "\xff"})
    expected += hrw::csv::quoted(k) + "," + hrw::csv::quoted(view.node(hrw::reference::owner(view, k)).id) + "\n";
  CHECK(res.out == expected);
}

TEST_CASE("hrw plan equals the reference and its files add up", "[cli][plan]") {
  TempDir dir;
  const auto keys = hrw::test::tricky_keys(hrw::test::scaled(600, hrw::test::kEmulatedScale), 33, true);
  std::string text = "key,bytes,requests\n";
  for (std::size_t i = 0; i < keys.size(); ++i)
    text += hrw::csv::quoted(keys[i]) + "," + std::to_string(i) + ",1\n";
  const std::string from = dir.write("a.json", kFrom), to = dir.write("b.json", kTo);
  const std::string input = dir.write("k.csv", text);
  const hrw::ClusterView a(hrw::load_cluster_file(from)), b(hrw::load_cluster_file(to));
  for (std::uint32_t r : {1u, 2u}) {
    const std::string out = dir.file("plan" + std::to_string(r));
    const auto res = run_hrw({"plan", "--from", from, "--to", to, "--keys", input, "--replicas",
                              std::to_string(r), "--batch-size", "10", "--out", out, "--svg",
                              out + "/flows.svg"});
    REQUIRE(res.exit_code == 0);
    CHECK_THAT(res.err, Contains("ideal") && Contains("batch"));
    CHECK_THAT(hrw::test::read_file(out + "/flows.svg"), Contains("<svg"));
    const auto rows = hrw::test::parse_csv_file(out + "/moves.csv");
    REQUIRE(!rows.empty());
    // The input has bytes and requests: so do the moves (docs/plan.md, DIR/moves.csv).
    CHECK(rows[0] == std::vector<std::string>{"batch", "key", "from", "to", "bytes", "requests"});
    std::size_t row = 1, moved = 0;
    for (auto& k : keys) {
      auto ra = ids(a, hrw::reference::top_r(a, k, r), r), rb = ids(b, hrw::reference::top_r(b, k, r), r);
      std::set<std::string> sa(ra.begin(), ra.end()), sb(rb.begin(), rb.end());
      if (sa == sb) continue;
      ++moved;
      for (auto& id : rb) {
        if (sa.count(id)) continue;
        REQUIRE(row < rows.size());
        CHECK(rows[row][0] == std::to_string((row - 1) / 10 + 1));
        CHECK(rows[row][1] == k);
        CHECK(rows[row][3] == id);
        if (r == 1) CHECK(rows[row][2] == ra[0]);
        ++row;
      }
    }
    CHECK(row == rows.size());
    const auto s = nlohmann::json::parse(hrw::test::read_file(out + "/summary.json"));
    CHECK(s["from_version"] == 3);
    CHECK(s["to_version"] == 4);
    CHECK(s["keys"] == keys.size());
    CHECK(s["moved"] == moved);
    CHECK(s["batches"] == (rows.size() - 1 + 9) / 10);
    // R > 1 names the owner-level ideal for what it is (contract §7, docs/plan.md DIR/summary.json).
    CHECK(s[r == 1 ? "ideal_fraction" : "owner_ideal_fraction"].get<double>() ==
          Approx(hrw::ideal_fraction(a, b)));
    for (auto& n : s["nodes"]) {
      CHECK(n["keys_before"].get<std::int64_t>() - n["out"].get<std::int64_t>() + n["in"].get<std::int64_t>() ==
            n["keys_after"].get<std::int64_t>());
      CHECK(n["bytes_before"].get<std::int64_t>() - n["bytes_out"].get<std::int64_t>() +
                n["bytes_in"].get<std::int64_t>() == n["bytes_after"].get<std::int64_t>());
      CHECK(n.contains("requests_in"));
    }
  }
}

TEST_CASE("hrw sample feeds the README's plan", "[cli][plan]") {
  TempDir dir;
  const std::string work = dir.file("work");
  REQUIRE(run_hrw({"sample", "--keys", "2000", "--out", work}).exit_code == 0);
  const auto res = run_hrw({"plan", "--from", work + "/from.json", "--to", work + "/to.json",
                            "--keys", work + "/keys.txt", "--out", work + "/plan"});
  REQUIRE(res.exit_code == 0);
  const auto s = nlohmann::json::parse(hrw::test::read_file(work + "/plan/summary.json"));
  CHECK(s["keys"] == 2000);
  CHECK(s["nodes"].size() == 11);
  CHECK(s["ideal_fraction"].get<double>() == Approx(1.0 / 11));
  CHECK(names(work + "/plan") == std::vector<std::string>{"from.json", "moves.csv", "summary.json", "to.json"});
}

TEST_CASE("bad inputs: exit 2 and one line naming the file (and line)", "[cli][errors]") {
  TempDir dir;
  const std::string a = dir.write("a.json", kFrom), b = dir.write("b.json", kTo);
  const std::string regular = dir.write("regular", "x");
  auto plan = [&](const std::string& keys, const std::string& out = "") {
    return run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out",
                    out.empty() ? dir.file("p") : out});
  };
  auto place = [&](const std::string& keys) { return run_hrw({"place", "--cluster", a, "--keys", keys}); };
  struct Case { std::string name, content, message; };
  const std::vector<Case> cases = {
      {"nokey.csv", "id,bytes\nx,1\n", "nokey.csv: line 1: the CSV header has no \"key\" column"},
      {"neg.csv", "key,bytes\nx,1\ny,-1\n", "neg.csv: line 3: bytes must be a non-negative integer"},
      {"frac.csv", "key,requests\nx,1.5\n", "frac.csv: line 2: requests must be a non-negative integer"},
      {"open.csv", "key\nx\n\"y\nz\n", "open.csv: line 3: quoted field is never closed"},
  };
  for (const Case& c : cases) {
    const std::string path = dir.write(c.name, c.content);
    for (const auto& res : {plan(path), place(path)}) {
      CHECK(res.exit_code == 2);
      CHECK_THAT(res.err, Contains(c.message));
      CHECK(std::count(res.err.begin(), res.err.end(), '\n') == 1);
    }
  }
  for (const auto& res : {plan(dir.file("missing.txt")), place(dir.file("missing.txt"))}) {
    CHECK(res.exit_code == 2);
    CHECK_THAT(res.err, Contains("missing.txt: cannot open"));
  }
  for (const auto& res : {plan(dir.path()), place(dir.path())}) {
    CHECK(res.exit_code == 2);
    CHECK_THAT(res.err, Contains("is a directory"));
  }
  const std::string keys = dir.write("k.txt", "a\nb\n");
  auto res = plan(keys, regular + "/sub");
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains(regular + "/sub: cannot create the output folder"));
  res = run_hrw({"place", "--cluster", a, "--keys", keys, "--out", regular + "/o.csv"});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, Contains(regular + "/o.csv: cannot create output file"));
  res = run_hrw({"place", "--cluster", a, "--keys", keys, "--replicas", "0"});
  CHECK(res.exit_code == 2);
  // Different seeds: allowed, with a warning.
  const std::string seeded = dir.write("s.json", R"({"version": 9, "seed": "x", "nodes": ["a", "b"]})");
  res = run_hrw({"plan", "--from", a, "--to", seeded, "--keys", keys, "--out", dir.file("q")});
  CHECK(res.exit_code == 0);
  CHECK_THAT(res.err, Contains("warning") && Contains("every key may move"));
}

TEST_CASE("a full disk is an error, not a truncated output", "[cli][atomic]") {
  TempDir dir;
  // A full device of our own (1,7 is /dev/full): the test runs wherever mknod is allowed
  // and fails, rather than passing silently, where it is not.
  const std::string full = dir.file("full");
  REQUIRE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0);
  const std::string a = dir.write("a.json", kFrom), keys = dir.write("k.txt", "a\nb\n");
  const std::string cmd = std::string(hrw::test::kCliEmulator) + " " + hrw::test::kCliPath + " place --cluster " +
                          a + " --keys " + keys + " > " + full + " 2> " + dir.file("err");
  const int status = std::system(cmd.c_str());
  CHECK(WEXITSTATUS(status) == 1);
  CHECK_THAT(hrw::test::read_file(dir.file("err")), Contains("write failed"));
}

TEST_CASE("SIGINT mid-run leaves no output and no temp file", "[cli][atomic]") {
  TempDir dir;
  const std::string a = dir.write("a.json", kFrom), b = dir.write("b.json", kTo);
  const std::string out = dir.file("plan");
  // Keys flow, the run is mid-way (temp files exist), then the operator hits Ctrl-C.
  const auto run = hrw::test::signal_plan_mid_run(a, b, out, SIGINT, false);
  CHECK(run.mid_way);
  CHECK(run.exit_code == 130);
  CHECK(names(out).empty());
}

TEST_CASE("views that differ under one version are refused by every plan", "[cli][plan][versions]") {
  hrw::test::TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 7, "nodes": ["n1", "n2", "n3"]})");
  const std::string b = dir.write("b.json", R"({"version": 7, "nodes": ["n1", "n2", "n3", "n4"]})");
  const std::string same = dir.write("same.json", R"({"version": 7, "nodes": ["n1", "n2", "n3"]})");
  const std::string keys = dir.write("k.txt", "x\ny\nz\n");
  const std::string expected = "hrw: " + b + ": version 7 is also " + a +
                               "'s, but the two views differ: give the changed view a new version\n";
  for (const auto& extra : std::vector<std::vector<std::string>>{{}, {"--max-moves-per-node", "1"},
                                                                  {"--max-moved-fraction", "0.5"}}) {
    std::vector<std::string> args = {"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p")};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = hrw::test::run_hrw(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == expected);
    CHECK_FALSE(std::filesystem::exists(dir.file("p")));
  }
  // Equal contents under one version (another file, other spacing): a plan that moves nothing.
  const auto r = hrw::test::run_hrw({"plan", "--from", a, "--to", same, "--keys", keys, "--out", dir.file("q"), "--quiet"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(hrw::test::read_file(dir.file("q/summary.json")), Catch::Matchers::Contains("\"moved\": 0,"));
}

TEST_CASE("losing replicas: said on stderr, and a single copy only when asked for by name", "[cli][plan][replicas]") {
  hrw::test::TempDir dir;
  const std::string r3 = dir.write("r3.json", R"({"version": 1, "rule": {"replicas": 3}, "nodes": ["a", "b", "c", "d"]})");
  const std::string r2 = dir.write("r2.json", R"({"version": 2, "rule": {"replicas": 2}, "nodes": ["a", "b", "c", "d"]})");
  const std::string bare = dir.write("bare.json", R"({"version": 3, "nodes": ["a", "b", "c", "d"]})");
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "k" + std::to_string(i) + "\n";
  const std::string k = dir.write("k.txt", keys);
  auto plan = [&](const std::string& to, const std::string& out, std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"plan", "--from", r3, "--to", to, "--keys", k, "--out", dir.file(out), "--quiet"};
    args.insert(args.end(), extra.begin(), extra.end());
    return hrw::test::run_hrw(args);
  };
  auto r = plan(r2, "p2");
  CHECK(r.exit_code == 0);
  CHECK(r.err == "hrw: warning: " + r2 + " keeps 2 replica(s) of each key where " + r3 +
                     " keeps 3: the plan retires the others\n");
  // A view that drops the rule: one copy of every key, refused whatever the limits.
  for (const auto& extra : std::vector<std::vector<std::string>>{{}, {"--max-moves-per-node", "5"}, {"--transitions"}}) {
    r = plan(bare, "p1", extra);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hrw: " + bare + ": 1 replica of each key where " + r3 +
                       " keeps 3: a plan to a single copy of every key is asked for by name (--allow-single-copy)\n");
    CHECK_FALSE(std::filesystem::exists(dir.file("p1")));
  }
  r = plan(bare, "p1", {"--allow-single-copy", "--transitions"});
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.err, Contains("keeps 1 replica(s) of each key where"));
  // Growing the replica count says nothing.
  r = hrw::test::run_hrw({"plan", "--from", r2, "--to", dir.write("r3b.json", R"({"version": 4, "rule": {"replicas": 3},
      "nodes": ["a", "b", "c", "d"]})"), "--keys", k, "--out", dir.file("up"), "--quiet"});
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("check --cluster --misplaced: one row per key whose holders are not the view's, with both sets",
          "[cli][check][misplaced]") {
  hrw::test::TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "4000", "--out", dir.path()}).exit_code == 0);
  for (const std::string r : {"1", "2"}) {
    INFO("R = " << r);
    const auto now = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", dir.file("keys.txt"),
                              "--replicas", r, "--quiet"});
    const auto want = run_hrw({"place", "--cluster", dir.file("to.json"), "--keys", dir.file("keys.txt"),
                               "--replicas", r, "--quiet"});
    REQUIRE(now.exit_code == 0);
    REQUIRE(want.exit_code == 0);
    const std::string current = dir.write("now.csv", now.out);
    const auto res = run_hrw({"check", "--cluster", dir.file("to.json"), "--placement", current, "--replicas", r,
                              "--misplaced", dir.file("mis.csv"), "--format", "json"});
    CHECK(res.exit_code == 3);
    const auto report = nlohmann::json::parse(res.out);
    // The expected rows, from the two placements: keys whose sets differ, in input order.
    auto rows_of = [](const std::string& csv) {
      std::vector<std::vector<std::string>> rows;
      std::istringstream in(csv);
      std::string line;
      std::getline(in, line);
      while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::istringstream cells_in(line);
        for (std::string c; std::getline(cells_in, c, ',');) cells.push_back(c);
        rows.push_back(cells);
      }
      return rows;
    };
    const auto a = rows_of(now.out), b = rows_of(want.out);
    REQUIRE(a.size() == b.size());
    std::string expected = r == "1" ? "key,expected,actual\n" : "key,expected_1,expected_2,actual_1,actual_2\n";
    std::size_t count = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
      auto sa = std::set<std::string>(a[i].begin() + 1, a[i].end()), sb = std::set<std::string>(b[i].begin() + 1, b[i].end());
      if (sa == sb) continue;
      ++count;
      expected += a[i][0];
      for (std::size_t k = 1; k < b[i].size(); ++k) expected += "," + b[i][k];
      for (std::size_t k = 1; k < a[i].size(); ++k) expected += "," + a[i][k];
      expected += "\n";
    }
    CHECK(count > 100);
    CHECK(report["misplaced"] == count);
    CHECK(hrw::test::read_file(dir.file("mis.csv")) == expected);
  }
  // Never over the placement it reads.
  const auto res = run_hrw({"check", "--cluster", dir.file("to.json"), "--placement", dir.file("now.csv"),
                            "--misplaced", dir.file("now.csv")});
  CHECK(res.exit_code == 2);
}
