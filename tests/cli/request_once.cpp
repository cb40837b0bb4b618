// A request is resolved and validated once (docs/api.md, "Placing keys"): `select` and
// `place` read the same flags the same way against a view's rule (contract §8).
#include <catch2/catch.hpp>

#include <string>

#include "cli_runner.hpp"

using namespace hrw;

TEST_CASE("select and place agree: --distinct alone takes the rule's replicas", "[cli][select][rule]") {
  const test::TempDir dir;
  const std::string ruled = dir.write(
      "ruled.json",
      R"({"version": 2, "rule": {"replicas": 2, "distinct": "zone"}, "nodes": [
          {"id": "a", "zone": "z1"}, {"id": "b", "zone": "z1"}, {"id": "c", "zone": "z2"}]})");
  const std::string keys = dir.write("keys.txt", "k\n");
  auto sel = test::run_hrw({"select", "k", "--cluster", ruled, "--distinct", "zone"});
  INFO(sel.err);
  REQUIRE(sel.exit_code == 0);
  auto plain = test::run_hrw({"select", "k", "--cluster", ruled});
  CHECK(sel.out == plain.out);
  CHECK(sel.out.find("replicas (2, distinct zone): ") != std::string::npos);
  const auto placed = test::run_hrw({"place", "--cluster", ruled, "--keys", keys, "--distinct", "zone"});
  CHECK(placed.exit_code == 0);
  // A value that contradicts the rule is refused by both, in the same words.
  sel = test::run_hrw({"select", "k", "--cluster", ruled, "--replicas", "1", "--distinct", "zone"});
  CHECK(sel.exit_code == 2);
  CHECK(sel.err == "hrw: --replicas 1 contradicts the rule of " + ruled + " (replicas 2)\n");
  const auto refused = test::run_hrw({"place", "--cluster", ruled, "--keys", keys, "--replicas", "1"});
  CHECK(refused.err == sel.err);
}
