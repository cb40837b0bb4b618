// `hrw select` end to end: both output formats and every bad input it refuses.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

TEST_CASE("select --format json answers with the documented fields", "[cli][select]") {
  const auto r = run_hrw({"select", "user:42", "--nodes", "node-1,node-2,node-3,node-4",
                          "--format", "json", "--replicas", "2"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["key"] == "user:42");
  CHECK(j["seed"] == "");
  CHECK(j["hash"] == "fnv1a-fmix");
  CHECK(j["version"] == 0);
  CHECK(j["weighted"] == false);
  CHECK(j["owner"] == "node-4");
  CHECK(j["replicas"] == nlohmann::json::array({"node-4", "node-3"}));
  CHECK(j["partial"] == false);
  REQUIRE(j["scores"].size() == 4);
  CHECK(j["scores"][0] ==
        nlohmann::json::parse(R"({"node":"node-4","rank":1,"fnv":2501216775,"r":3013550908,"score":3013550908})"));
  CHECK(j["scores"][3]["node"] == "node-2");
  CHECK(j["scores"][3]["rank"] == 4);
}

TEST_CASE("select: weighted JSON rows carry weight, cluster file overrides", "[cli][select]") {
  TempDir dir;
  const auto file = dir.write("c.json", R"({"version": 7, "seed": "zzz", "hash": "fnv1a",
    "nodes": ["cache-a", "cache-b", "cache-c", "cache-d"]})");
  const auto r = run_hrw({"select", "k7", "--cluster", file, "--seed", "", "--hash", "fnv1a-fmix",
                          "--weights", "1,2,3,4", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  const auto j = nlohmann::json::parse(r.out);
  CHECK(j["version"] == 7);
  CHECK(j["seed"] == "");
  CHECK(j["hash"] == "fnv1a-fmix");
  CHECK(j["weighted"] == true);
  CHECK(j["owner"] == "cache-d");
  CHECK(j["scores"][0]["weight"] == 4.0);
  CHECK(j["scores"][0]["r"] == 3906118675u);
  CHECK(j["scores"][0]["score"].get<double>() == Approx(0.976554292146522).epsilon(1e-15));
  CHECK_FALSE(j.contains("replicas"));
}

TEST_CASE("select table output lists every node and marks the winner", "[cli][select]") {
  const auto r = run_hrw({"select", "user:42", "--nodes", "node-1,node-2,node-3,node-4"});
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("*    1  node-4  2501216775  3013550908"));
  CHECK_THAT(r.out, Contains("     4  node-2"));
  CHECK_THAT(r.out, Contains("owner: node-4"));
}

TEST_CASE("select --distinct and --partial", "[cli][select]") {
  TempDir dir;
  const auto file = dir.write("c.json", R"({"nodes": [{"id": "a", "zone": "z1"},
    {"id": "b", "zone": "z1"}, {"id": "c", "zone": "z2"}]})");
  auto r = run_hrw({"select", "k", "--cluster", file, "--replicas", "2", "--distinct", "zone",
                    "--format", "json"});
  REQUIRE(r.exit_code == 0);
  auto j = nlohmann::json::parse(r.out);
  REQUIRE(j["replicas"].size() == 2);
  CHECK(j["replicas"][0] != j["replicas"][1]);
  r = run_hrw({"select", "k", "--cluster", file, "--replicas", "3", "--distinct", "zone",
               "--partial", "--format", "json"});
  REQUIRE(r.exit_code == 0);
  j = nlohmann::json::parse(r.out);
  CHECK(j["partial"] == true);
  CHECK(j["replicas"].size() == 2);
}

TEST_CASE("select: every bad input exits 2 with one line naming the problem", "[cli][select][errors]") {
  TempDir dir;
  const auto good = dir.write("good.json", R"({"nodes": [{"id": "a", "zone": "z1"}, {"id": "b", "zone": "z1"}]})");
  struct Bad {
    std::vector<std::string> args;
    std::string message;
  };
  const std::vector<Bad> cases = {
      {{"select", "k"}, "no nodes"},
      {{"select", "k", "--cluster", dir.write("empty.json", R"({"nodes": []})")}, "empty.json: the cluster has no nodes"},
      {{"select", "k", "--nodes", "a,,b"}, "--nodes: nodes[1] has an empty id"},
      {{"select", "k", "--nodes", "a,b,a"}, "duplicate node id \"a\""},
      {{"select", "k", "--nodes", "a,b", "--weights", "1,0"}, "node \"b\": weight must be finite and > 0, got 0"},
      {{"select", "k", "--nodes", "a,b", "--weights", "-2,1"}, "node \"a\": weight must be finite and > 0, got -2"},
      {{"select", "k", "--nodes", "a,b", "--weights", "nan,1"}, "node \"a\": weight must be finite and > 0, got nan"},
      {{"select", "k", "--nodes", "a,b", "--weights", "1,inf"}, "node \"b\": weight must be finite and > 0, got inf"},
      {{"select", "k", "--nodes", "a,b", "--weights", "1,x"}, "weight of nodes[1] (\"b\") is not a number: \"x\""},
      {{"select", "k", "--nodes", "a,b", "--weights", "1,2,3"}, "3 weights for 2 nodes"},
      {{"select", "k", "--nodes", "a,b", "--weights", "1"}, "1 weights for 2 nodes"},
      {{"select", "k", "--nodes", "a,b", "--hash", "md5"}, "--hash: unknown hash mode \"md5\""},
      {{"select", "k", "--nodes", "a,b", "--replicas", "0"}, "--replicas: must be an integer from 1 to"},
      {{"select", "k", "--nodes", "a,b", "--replicas", "3"}, "--replicas 3 exceeds the 2 node(s)"},
      {{"select", "k", "--cluster", good, "--replicas", "2", "--distinct", "zone"},
       "needs 2 failure domains, but " + good + " has only 1"},
      {{"select", "k", "--cluster", dir.file("missing.json")}, "missing.json: cannot open: No such file"},
      {{"select", "k", "--cluster", dir.path()}, "cannot read: is a directory"},
      {{"select", "k", "--cluster", dir.write("bad.json", "{\"nodes\": [\"a\",\n  \"b\" \"c\"]}")},
       "bad.json: line 2, column 9: malformed JSON"},
      {{"select", "k", "--cluster", dir.write("num.json", R"({"nodes": ["a", 5]})")},
       "num.json: nodes[1]: a node must be an object or an id string, got number"},
      {{"select", "k", "--cluster", dir.write("typo.json", R"({"nodes": ["a"], "sed": "x"})")},
       "typo.json: unknown top-level field \"sed\""},
      {{"select", "k", "--nodes", "a", "--format", "xml"}, "--format"},
  };
  for (const Bad& bad : cases) {
    INFO(bad.message);
    const auto r = run_hrw(bad.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, StartsWith("hrw: ") && Contains(bad.message));
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(r.out.empty());
  }
}
