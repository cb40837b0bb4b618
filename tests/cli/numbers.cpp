// Numbers on the command line and in files: strict parsing, documented ranges, no silent
// wrap-around, no totals that overflow. Every bad value is exit 2 and one line naming it.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>

#include "cli_runner.hpp"

using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("numeric options: negatives, junk and out-of-range values name the option",
          "[cli][numbers]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string keys = dir.write("k.txt", "x\n");
  const std::vector<std::string> place = {"place", "--cluster", view, "--keys", keys};
  const std::vector<std::string> plan = {"plan", "--from", view, "--to", view, "--keys", keys, "--out", dir.file("p")};
  auto with = [](std::vector<std::string> base, std::vector<std::string> extra) {
    base.insert(base.end(), extra.begin(), extra.end());
    return base;
  };
  struct Case {
    std::vector<std::string> args;
    std::string option;
  };
  const std::vector<Case> cases = {
      {{"sample", "--keys", "-1", "--out", dir.file("s")}, "--keys"},
      {{"sample", "--keys", "1e12", "--out", dir.file("s")}, "--keys"},
      {{"compare", "--sample", "-1"}, "--sample"},
      {{"compare", "--sample", "1000000000000"}, "--sample"},
      {{"compare", "--from", "-1"}, "--from"},
      {{"compare", "--vnodes", "0"}, "--vnodes"},
      {{"compare", "--maglev-size", "18446744073709551617"}, "--maglev-size"},
      {{"verify", "--seed", "-1"}, "--seed"},
      {{"verify", "--pairs", "0"}, "--pairs"},
      {{"verify", "--pairs", "2e7x"}, "--pairs"},
      {{"verify", "--pairs", "2e99"}, "--pairs"},
      {{"verify", "--threads", "100000"}, "--threads"},
      {with(place, {"--threads", "100000"}), "--threads"},
      {with(place, {"--threads", "2147483648"}), "--threads"},
      {with(place, {"--threads", "-1"}), "--threads"},
      {with(place, {"--replicas", "-1"}), "--replicas"},
      {with(place, {"--replicas", "4294967296"}), "--replicas"},
      {with(place, {"--replicas", " 1"}), "--replicas"},
      {with(place, {"--replicas", "0x2"}), "--replicas"},
      {with(plan, {"--batch-size", "0"}), "--batch-size"},
      {with(plan, {"--batch-size", "18446744073709551615"}), "--batch-size"},
      {with(plan, {"--threads", "300"}), "--threads"},
      {{"select", "k", "--nodes", "a,b", "--replicas", "-1"}, "--replicas"},
  };
  for (const Case& c : cases) {
    INFO(c.args[0] << " " << c.option << " " << c.args.back());
    const auto res = run_hrw(c.args);
    CHECK(res.exit_code == 2);
    CHECK(lines(res.err) == 1);
    CHECK_THAT(res.err, StartsWith("hrw: " + c.option + ": must be an integer from "));
    CHECK(res.err.size() < 120);  // the bound is printed as a number, not 300 digits
  }
  CHECK(!std::filesystem::exists(dir.file("s")));
  CHECK(!std::filesystem::exists(dir.file("p")));
}

TEST_CASE("numeric options: the forms the help prints are accepted", "[cli][numbers]") {
  const auto help = run_hrw({"verify", "--help"});
  CHECK_THAT(help.out, Contains("(default 2e7)"));
  const auto res = run_hrw({"verify", "--pairs", "2e4", "--seed", "18446744073709551615"});
  CHECK(res.exit_code == 0);
  CHECK_THAT(res.out, Contains("OK"));
  CHECK(run_hrw({"compare", "--sample", "1e3", "--format", "csv"}).exit_code == 0);
}

TEST_CASE("thread counts beyond the cores: no oneTBB warning", "[cli][numbers]") {
  TempDir dir;
  const std::string keys = dir.write("k.txt", "x\ny\n");
  const auto res = run_hrw({"place", "--nodes", "a,b", "--keys", keys, "--threads", "64"});
  CHECK(res.exit_code == 0);
  CHECK_THAT(res.err, !Contains("TBB"));
  const auto v = run_hrw({"verify", "--pairs", "1e3", "--threads", "64"});
  CHECK(v.exit_code == 0);
  CHECK_THAT(v.err, !Contains("TBB"));
}

TEST_CASE("bytes and requests whose sum overflows are refused, naming the line", "[cli][numbers]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string bytes = dir.write("b.csv", "key,bytes\nx,18446744073709551615\ny,0\nz,1\n");
  const std::string requests = dir.write("r.csv", "key,requests\nx,9223372036854775808\ny,9223372036854775808\n");
  for (const auto& [file, message] : {std::pair{bytes, "b.csv: line 4: the bytes total exceeds 2^64 - 1"},
                                      std::pair{requests, "r.csv: line 3: the requests total exceeds 2^64 - 1"}}) {
    for (const auto& res : {run_hrw({"place", "--cluster", view, "--keys", file}),
                            run_hrw({"plan", "--from", view, "--to", view, "--keys", file, "--out", dir.file("p")})}) {
      CHECK(res.exit_code == 2);
      CHECK(lines(res.err) == 1);
      CHECK_THAT(res.err, Contains(message));
    }
  }
  // The largest total that fits is still exact.
  const std::string fits = dir.write("f.csv", "key,bytes\nx,18446744073709551614\ny,1\n");
  const auto res = run_hrw({"place", "--cluster", view, "--keys", fits, "--stats", dir.file("s.json")});
  CHECK(res.exit_code == 0);
  CHECK_THAT(hrw::test::read_file(dir.file("s.json")), Contains("18446744073709551615"));
}

TEST_CASE("quiet place and plan: no table or summary on stderr, errors still", "[cli][quiet]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string view2 = dir.write("w.json", R"({"version": 2, "nodes": ["a", "b", "c"]})");
  const std::string keys = dir.write("k.txt", "x\ny\nz\n");
  auto res = run_hrw({"place", "--cluster", view, "--keys", keys, "--quiet"});
  CHECK(res.exit_code == 0);
  CHECK(res.err.empty());
  CHECK(lines(res.out) == 4);
  res = run_hrw({"plan", "--from", view, "--to", view2, "--keys", keys, "--out", dir.file("p"), "--quiet"});
  CHECK(res.exit_code == 0);
  CHECK(res.err.empty());
  CHECK(std::filesystem::exists(dir.file("p/summary.json")));
  res = run_hrw({"place", "--cluster", view, "--keys", dir.file("missing"), "--quiet"});
  CHECK(res.exit_code == 2);
  CHECK(lines(res.err) == 1);
}

TEST_CASE("a JSON keys file is refused unless read as lines on purpose", "[cli][keys]") {
  TempDir dir;
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  for (const char* name : {"k.jsonl", "k.ndjson", "k.json"}) {
    const std::string keys = dir.write(name, "{\"key\": \"x\"}\n{\"key\": \"y\"}\n");
    for (const auto& res : {run_hrw({"place", "--cluster", view, "--keys", keys}),
                            run_hrw({"plan", "--from", view, "--to", view, "--keys", keys, "--out", dir.file("p")}),
                            run_hrw({"compare", "--keys", keys})}) {
      CHECK(res.exit_code == 2);
      CHECK(lines(res.err) == 1);
      CHECK_THAT(res.err, Contains(std::string(name) + ": JSON is not a keys format"));
    }
    const auto forced = run_hrw({"place", "--cluster", view, "--keys", keys, "--keys-format", "lines"});
    CHECK(forced.exit_code == 0);
    CHECK_THAT(forced.out, Contains("\"{\"\"key\"\": \"\"x\"\"}\","));
  }
}
