// Outputs that scale (docs/hierarchy.md): with hundreds or thousands of nodes, hrw place's stderr
// table shows the ends and a distribution, and the plan's SVG shows the nodes with the most
// moves and the load as a distribution, at most 2000 px wide.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdio>
#include <regex>
#include <string>

#include "cli_runner.hpp"

using Catch::Matchers::Contains;
using namespace hrw::test;

namespace {

// n nodes node-0000.., zones of 50, racks of 10, as a hierarchical view of `version`.
std::string tree_json(int n, int version) {
  std::string s = "{\"version\": " + std::to_string(version) + ", \"hierarchy\": [\"zone\", \"rack\"], \"nodes\": [";
  for (int i = 0; i < n; ++i) {
    char id[24];
    std::snprintf(id, sizeof id, "node-%04d", i);
    s += (i ? ", " : "") + std::string("{\"id\": \"") + id + "\", \"zone\": \"z" + std::to_string(i / 50) +
         "\", \"rack\": \"r" + std::to_string(i / 10 % 5) + "\"}";
  }
  return s + "]}";
}

std::string keys(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "user:" + std::to_string(i) + "\n";
  return s;
}

}  // namespace

TEST_CASE("hrw place: a 300-node table shows 20 rows, the gap and the ratio distribution",
          "[cli][outputs]") {
  const TempDir dir;
  const std::string cluster = dir.write("c.json", tree_json(300, 1));
  const std::string keyfile = dir.write("k.txt", keys(30000));
  const CliResult res = run_hrw({"place", "--cluster", cluster, "--keys", keyfile, "--out", dir.file("p.csv")});
  REQUIRE(res.exit_code == 0);
  const auto lines = std::count(res.err.begin(), res.err.end(), '\n');
  CHECK(lines <= 30);
  CHECK_THAT(res.err, Contains("... 280 more nodes (rows above: the 10 most loaded by ratio; below: the 10 least)"));
  CHECK_THAT(res.err, Contains("share ratio over 300 nodes: min "));
  // The first node row is the most loaded: its ratio is the distribution's max.
  const std::regex row(R"(\n(node-\d{4}) +\d+ +[\d.]+% +[\d.]+% +([\d.]+)\n)");
  std::smatch m;
  REQUIRE(std::regex_search(res.err, m, row));
  const std::regex max(R"(max ([\d.]+))");
  std::smatch mm;
  REQUIRE(std::regex_search(res.err, mm, max));
  CHECK(m[2].str() == mm[1].str());
  // --quiet drops the table.
  const CliResult quiet = run_hrw({"place", "--cluster", cluster, "--keys", keyfile, "--out",
                                   dir.file("q.csv"), "--quiet"});
  CHECK(quiet.err.empty());
}

TEST_CASE("hrw plan --svg: 24 flow bars and a load distribution at 300 nodes, <= 2000 px",
          "[cli][outputs]") {
  const TempDir dir;
  const std::string from = dir.write("a.json", tree_json(300, 1));
  const std::string to = dir.write("b.json", tree_json(310, 2));
  const std::string keyfile = dir.write("k.txt", keys(20000));
  const CliResult res = run_hrw({"plan", "--from", from, "--to", to, "--keys", keyfile, "--out",
                                 dir.file("plan"), "--svg", dir.file("p.svg"), "--quiet"});
  REQUIRE(res.exit_code == 0);
  const std::string svg = read_file(dir.file("p.svg"));
  std::smatch m;
  REQUIRE(std::regex_search(svg, m, std::regex(R"re(<svg [^>]*width="([\d.]+)")re")));
  CHECK(std::stod(m[1].str()) <= 2000);
  CHECK_THAT(svg, Contains("the 24 nodes with the most moves, of 310"));
  CHECK_THAT(svg, Contains("Nodes by load / target share (310 nodes"));
  // The new nodes (node-0300..node-0309) receive the most keys: they are among the bars.
  CHECK_THAT(svg, Contains(">node-0305<"));
  const auto panel = svg.find("Nodes by load");
  REQUIRE(panel != std::string::npos);
  std::size_t bars = 0;
  for (auto at = svg.find("class=\"bar\"", panel); at != std::string::npos;
       at = svg.find("class=\"bar\"", at + 1))
    ++bars;
  CHECK(bars > 0);
  CHECK(bars <= 40);  // 20 bins x (before, after), empty bins drawn as zero-height bars at most
}
