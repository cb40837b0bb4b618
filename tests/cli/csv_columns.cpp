// CSV header columns (docs/errors.md, "CSV columns"): a column hrw does not read is refused,
// naming it, the columns read and the near one, on every command that reads a keys CSV or
// a placement file, unless --ignore-columns names it; a skipped column changes nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "cli_runner.hpp"

using Catch::Matchers::Contains;
using hrw::test::run_hrw;
using hrw::test::TempDir;

namespace {

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

std::string replaced(std::string s, const std::string& from, const std::string& to) {
  for (std::size_t at = 0; (at = s.find(from, at)) != std::string::npos; at += to.size()) s.replace(at, from.size(), to);
  return s;
}

// What the commands below write, as one string (a missing file as nothing).
std::string outputs(const TempDir& dir) {
  std::string all;
  for (const char* name : {"o.csv", "b.json", "p/moves.csv", "q/moves.csv"})
    if (std::filesystem::exists(dir.file(name))) all += hrw::test::read_file(dir.file(name));
  return all;
}

// Every command that reads a keys CSV or a placement file, reading `file` as one.
std::vector<std::vector<std::string>> commands_reading(const TempDir& dir, const std::string& keys,
                                                       const std::string& placement) {
  const std::string from = dir.file("from.json"), to = dir.file("to.json");
  return {
      {"place", "--cluster", from, "--keys", keys, "--out", dir.file("o.csv")},
      {"plan", "--from", from, "--to", to, "--keys", keys, "--out", dir.file("p")},
      {"balance", "--cluster", from, "--keys", keys, "--max-overload", "0.5", "--out", dir.file("b.json"), "--quiet"},
      {"compare", "--keys", keys, "--format", "csv"},
      {"check", "--cluster", to, "--placement", placement},
      {"plan", "--from-placement", placement, "--to", to, "--out", dir.file("q")},
  };
}

}  // namespace

TEST_CASE("an unknown CSV column is one line, exit 2, naming it, the columns read and the near one",
          "[cli][csv-columns]") {
  TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "0", "--out", dir.path()}).exit_code == 0);
  // (header as written, the near name or "")
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"byte", "bytes"}, {"Bytes", "bytes"}, {" bytes", "bytes"}, {"request", "requests"},
      {"size", ""}, {"Key ", "key"}, {"owner_zone", ""}};
  for (const auto& [column, near] : cases) {
    INFO("column \"" << column << "\"");
    const std::string keys = dir.write("keys.csv", fmt::format("key,{}\nuser:1,5\n", column));
    const std::string placement = dir.write("current.csv", fmt::format("key,owner,{}\nuser:1,node-1,5\n", column));
    for (const auto& args : commands_reading(dir, keys, placement)) {
      const bool reads_placement = args[0] == "check" || args[1] == "--from-placement";
      INFO(fmt::format("{}", fmt::join(args, " ")));
      const auto r = run_hrw(args);
      CHECK(r.exit_code == 2);
      CHECK(lines(r.err) == 1);
      const std::string file = reads_placement ? placement : keys;
      const std::string read = reads_placement ? "key, owner, replica_1, bytes, requests" : "key, bytes, requests";
      CHECK(r.err == fmt::format("hrw: {}: line 1: unknown column \"{}\"{}: the columns read are {}; to skip it, "
                                 "add it to --ignore-columns\n",
                                 file, column, near.empty() ? "" : fmt::format(" (did you mean \"{}\"?)", near), read));
    }
  }
  // With no key column, that is what is said first.
  const std::string keyless = dir.write("keyless.csv", "id,bytes\nx,1\n");
  const auto r = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", keyless});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Contains("has no \"key\" column"));
}

TEST_CASE("ignored columns (--ignore-columns) are skipped on every command, and changes no result", "[cli][csv-columns]") {
  TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "0", "--out", dir.path()}).exit_code == 0);
  std::string plain = "key,bytes\n", extra = "size,key,bytes,note\n";
  std::string placement = "key,owner,bytes\n";
  for (int i = 0; i < 3000; ++i) {
    plain += fmt::format("user:{},{}\n", i, i % 97);
    extra += fmt::format("{},user:{},{},\"a, b\"\n", i * 3, i, i % 97);
  }
  const std::string plain_keys = dir.write("plain.csv", plain), extra_keys = dir.write("extra.csv", extra);
  const auto placed = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", plain_keys, "--quiet"});
  REQUIRE(placed.exit_code == 0);
  std::string with_note = "note,";
  with_note += placed.out;
  for (std::size_t at = 0; (at = with_note.find('\n', at)) != std::string::npos && at + 1 < with_note.size();)
    with_note.insert(++at, "n,");
  const std::string plain_current = dir.write("plain-current.csv", placed.out);
  const std::string extra_current = dir.write("extra-current.csv", with_note);
  const auto plain_commands = commands_reading(dir, plain_keys, plain_current);
  const auto extra_commands = commands_reading(dir, extra_keys, extra_current);
  for (std::size_t c = 0; c < plain_commands.size(); ++c) {
    auto with = extra_commands[c];
    with.insert(with.end(), {"--ignore-columns", c >= 4 ? "note" : "size,note"});
    INFO(fmt::format("{}", fmt::join(with, " ")));
    const auto a = run_hrw(plain_commands[c]);
    const std::string a_files = outputs(dir);
    const auto b = run_hrw(with);
    CHECK(a.exit_code != 2);
    CHECK(b.exit_code == a.exit_code);
    // Reports name their input: the same up to the file's name.
    auto same_names = [&](const std::string& text) {
      return replaced(replaced(text, extra_keys, plain_keys), extra_current, plain_current);
    };
    if (with[0] != "compare") CHECK(same_names(b.out) == a.out);  // compare prints its timings
    CHECK(same_names(outputs(dir)) == a_files);
  }
}
