// Every numeric option of every command, hidden ones included, taken from the CLI's own
// option registry (`hrw --list-options`), gets the same list of bad values: each is exit 2
// and one line naming the option, before anything is read or written (docs/errors.md,
// "Options: ranges"). An option that is not declared numeric must be in the list of text
// options below, so a new numeric option declared as text cannot slip past the walk.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>
#include <set>
#include <sstream>

#include "cli_runner.hpp"

using hrw::test::run_hrw;
using hrw::test::TempDir;
using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;

namespace {

struct Listed {
  std::string command, option, type;
};

std::vector<Listed> listed_options() {
  const auto res = run_hrw({"--list-options"});
  REQUIRE(res.exit_code == 0);
  std::vector<Listed> out;
  std::istringstream in(res.out);
  for (Listed l; in >> l.command >> l.option >> l.type;) out.push_back(l);
  return out;
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

// Values no numeric option accepts.
const std::vector<std::string> kBadValues = {
    "", " 5", "5 ", "0x10", "+5", "-1", "1e", "2^64", "18446744073709551616", "99999999999999999999",
    "5x", "NaN", "nan", "inf", "Infinity", "1,5", "1e400", "١", "5\n"};
// Bad for every unsigned option as well (a real option may take them).
const std::vector<std::string> kBadUnsigned = {"1.5", "1e-2", "2e99", "18446744073709551615000"};

// Under a sanitizer or an emulator a process starts tens of times slower: there each option
// walks every 4th bad value, the choice rotating from one option to the next, so that every
// value is still walked by about a quarter of the options.
#if defined(HRW_TEST_SANITIZED) || defined(HRW_TEST_EMULATED)
constexpr std::size_t kStride = 4;
#else
constexpr std::size_t kStride = 1;
#endif

// For each command, a command line that runs (given a good value for the walked option).
std::map<std::string, std::vector<std::string>> base_commands(const TempDir& dir) {
  const std::string view = dir.write("v.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string keys = dir.write("k.txt", "x\n");
  const std::string placement = dir.write("p.csv", "key,owner\nx,a\n");
  return {
      {"select", {"select", "k", "--nodes", "a,b"}},
      {"place", {"place", "--cluster", view, "--keys", keys}},
      {"plan", {"plan", "--from", view, "--to", view, "--keys", keys, "--out", dir.file("out")}},
      {"check", {"check", "--cluster", view, "--placement", placement}},
      {"compare", {"compare", "--sample", "100"}},
      {"verify", {"verify", "--pairs", "1000"}},
      {"sample", {"sample", "--keys", "10", "--out", dir.file("out")}},
      {"view", {"view", "edit", view, "--add", "c", "--out", dir.file("out")}},
      {"bench", {"bench", "--quick"}},
      {"balance", {"balance", "--cluster", view, "--keys", keys, "--max-overload", "0.05", "--out",
                   dir.file("out")}},
  };
}

// `command` without `option` and its value: the walked option takes their place.
std::vector<std::string> without(const std::vector<std::string>& command, const std::string& option) {
  std::vector<std::string> args;
  for (std::size_t i = 0; i < command.size(); ++i) {
    if (command[i] == option) {
      ++i;
      continue;
    }
    args.push_back(command[i]);
  }
  return args;
}

}  // namespace

TEST_CASE("option walk: the registry lists every command's options with a type", "[cli][numbers][walk]") {
  const auto options = listed_options();
  std::set<std::string> commands;
  std::map<std::string, std::string> types;
  for (const Listed& l : options) {
    commands.insert(l.command);
    types[l.command + " " + l.option] = l.type;
  }
  CHECK(commands == std::set<std::string>{"select", "place", "plan", "check", "compare", "verify", "sample", "view",
                                          "balance", "bench"});
  // Hidden options are listed too.
  CHECK(types["place --chunk-size"] == "UINT");
  CHECK(types["plan --max-moves-per-node"] == "UINT");
  CHECK(types["plan --step-versions"] == "UINT");
  CHECK(types["plan --max-bytes-per-node"] == "UINT");
  CHECK(types["plan --max-moved-fraction"] == "REAL");
  CHECK(types["compare --load-factor"] == "REAL");
  CHECK(types["check --replicas"] == "UINT");
  CHECK(types["check --threads"] == "UINT");
  CHECK(types["check --through-round"] == "UINT");
  CHECK(types["check --through-step"] == "UINT");
  CHECK(types["plan --node-bandwidth"] == "UINT");
  CHECK(types["view --version"] == "UINT");
  CHECK(types["balance --max-overload"] == "REAL");
  CHECK(types["balance --version"] == "UINT");
  CHECK(types["balance --threads"] == "UINT");
  // Every other option is text or a flag, and known to be: a numeric option declared as text
  // (outside numbers.hpp) fails here.
  const std::set<std::string> text = {
      "select key", "select --cluster", "select --nodes", "select --seed", "select --hash",
      "select --weights", "select --hierarchy", "select --distinct", "select --format",
      "place --cluster", "place --nodes", "place --seed", "place --hash", "place --weights",
      "place --hierarchy", "place --keys", "place --keys-format", "place --distinct", "place --out",
      "place --stats", "place --ignore-columns", "plan --ignore-columns", "check --ignore-columns",
      "compare --ignore-columns", "balance --ignore-columns",
      "plan --from", "plan --from-placement", "plan --to", "plan --keys", "plan --keys-format",
      "plan --distinct", "plan --hierarchy", "plan --out", "plan --svg", "plan --cap-by",
      "check --cluster", "check --placement", "check --distinct", "check --plan", "check --misplaced",
      "check --hierarchy", "check --format",
      "compare --keys", "compare --from-cluster", "compare --to-cluster", "compare --format",
      "compare --svg", "compare --hierarchy",
      "sample --out",
      "view action", "view file", "view --format", "view --add", "view --remove", "view --weight", "view --out",
      "view --keys", "view --keys-format", "view --distinct", "view --ignore-columns",
      "balance --cluster", "balance --nodes", "balance --seed", "balance --hash",
      "balance --weights", "balance --hierarchy", "balance --keys", "balance --keys-format",
      "balance --by", "balance --out", "balance --stats",
      "bench --format", "bench --out", "bench --compare"};
  for (const Listed& l : options) {
    INFO(l.command << " " << l.option << " " << l.type);
    if (l.type == "TEXT") CHECK(text.count(l.command + " " + l.option) == 1);
    CHECK((l.type == "TEXT" || l.type == "FLAG" || l.type == "UINT" || l.type == "REAL"));
  }
}

TEST_CASE("option walk: every numeric option refuses the same bad values, naming itself",
          "[cli][numbers][walk]") {
  TempDir dir;
  const auto base = base_commands(dir);
  std::size_t walked = 0, numeric = 0;
  std::set<std::string> values_walked;
  for (const Listed& l : listed_options()) {
    if (l.type != "UINT" && l.type != "REAL") continue;
    const std::size_t rotation = numeric++;
    REQUIRE(base.count(l.command) == 1);
    std::vector<std::string> args = without(base.at(l.command), l.option);
    std::vector<std::string> values = kBadValues;
    if (l.type == "UINT") values.insert(values.end(), kBadUnsigned.begin(), kBadUnsigned.end());
    for (std::size_t v = 0; v < values.size(); ++v) {
      if ((v + rotation) % kStride != 0) continue;
      const std::string& value = values[v];
      values_walked.insert(value);
      auto run = args;
      run.push_back(l.option);
      run.push_back(value);
      INFO(l.command << " " << l.option << " \"" << value << "\"");
      const auto res = run_hrw(run);
      CHECK(res.exit_code == 2);
      CHECK(lines(res.err) == 1);
      CHECK_THAT(res.err, StartsWith("hrw: " + l.option + ": must be "));
      CHECK(res.out.empty());
      ++walked;
    }
  }
  CHECK(walked > 20 * kBadValues.size() / kStride);
  CHECK(values_walked.size() == kBadValues.size() + kBadUnsigned.size());
  CHECK(!std::filesystem::exists(dir.file("out")));
}

TEST_CASE("option walk: the limits of plan and check take their whole documented range", "[cli][numbers][walk]") {
  TempDir dir;
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": ["a", "b"]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": ["a", "b", "c"]})");
  const std::string keys = dir.write("k.csv", "key,bytes\nx,5\ny,7\nz,9\nw,11\n");
  // 2^64 - 1 is a limit, not clamped to 2^63 - 1 nor wrapped; 2^64 is refused.
  for (const char* option : {"--max-moves-per-node", "--max-bytes-per-node"}) {
    INFO(option);
    auto res = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("p"), option,
                        "18446744073709551615", "--quiet"});
    REQUIRE(res.exit_code == 0);
    CHECK_THAT(hrw::test::read_file(dir.file("p/summary.json")), Contains("18446744073709551615"));
    res = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("q"), option,
                   "18446744073709551616"});
    CHECK(res.exit_code == 2);
    CHECK(res.err == std::string("hrw: ") + option +
                         ": must be an integer from 1 to 18446744073709551615, got \"18446744073709551616\"\n");
  }
  // check --replicas 4294967297 is refused, not wrapped to 1.
  const std::string placement = dir.write("p.csv", "key,owner\nx,a\n");
  auto res = run_hrw({"check", "--cluster", a, "--placement", placement, "--replicas", "4294967297"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --replicas: must be an integer from 1 to 4294967295, got \"4294967297\"\n");
  res = run_hrw({"check", "--cluster", a, "--placement", placement, "--threads", "257"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --threads: must be an integer from 0 to 256, got \"257\"\n");
  // Real options: the forms of the help are accepted, their ranges printed when refused.
  res = run_hrw({"compare", "--sample", "1000", "--load-factor", "1.5", "--format", "csv"});
  CHECK(res.exit_code == 0);
  res = run_hrw({"compare", "--sample", "1000", "--load-factor", "1"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --load-factor: must be a number in (1, 10000], got \"1\"\n");
  res = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("r"), "--max-moved-fraction", "0"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --max-moved-fraction: must be a number in (0, 1], got \"0\"\n");
  res = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("r"), "--max-moved-fraction",
                 "5e-1", "--quiet", "--step-versions", "10"});
  CHECK(res.exit_code == 0);
  // Step versions: any version, 0 to 2^63 - 1.
  res = run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("r"), "--max-moved-fraction",
                 "0.5", "--step-versions", "9223372036854775808"});
  CHECK(res.exit_code == 2);
  CHECK(res.err == "hrw: --step-versions: must be an integer from 0 to 9223372036854775807, got "
                   "\"9223372036854775808\"\n");
}

// docs/errors.md, "Empty values": "--out \"$OUT\"" with OUT unset is refused, naming the
// option, never taken as "not given". Only a seed and a key may be empty (the contract's).
TEST_CASE("option walk: every text option refuses an empty value, naming itself", "[cli][walk]") {
  TempDir dir;
  const auto base = base_commands(dir);
  std::size_t walked = 0;
  for (const Listed& l : listed_options()) {
    if (l.type != "TEXT" || l.option.rfind("--", 0) != 0 || l.option == "--seed") continue;
    REQUIRE(base.count(l.command) == 1);
    std::vector<std::string> args = without(base.at(l.command), l.option);
    args.push_back(l.option);
    args.push_back("");
    INFO(l.command << " " << l.option << " \"\"");
    const auto res = run_hrw(args);
    CHECK(res.exit_code == 2);
    CHECK(lines(res.err) == 1);
    CHECK_THAT(res.err, Contains(l.option));
    CHECK(res.out.empty());
    ++walked;
  }
  CHECK(walked > 40);
  // Where the CLI's own checks do not come first, the message says why.
  auto res = run_hrw({"place", "--cluster", base.at("place")[2], "--keys", base.at("place")[4], "--out", ""});
  CHECK(res.err == "hrw: --out: an empty value (a variable left unset?): give one, or leave --out out\n");
  res = run_hrw({"select", "k", "--nodes", "a,b", "--distinct", ""});
  CHECK(res.exit_code == 2);
  CHECK_THAT(res.err, StartsWith("hrw: --distinct: an empty value"));
  // The seed and the key are values of the contract when empty.
  CHECK(run_hrw({"select", "", "--nodes", "a,b", "--seed", ""}).exit_code == 0);
  CHECK(!std::filesystem::exists(dir.file("out")));
}
