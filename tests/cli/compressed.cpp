// Compressed inputs and outputs at the CLI (docs/errors.md, "Compressed files"): a gzip or
// zstd keys file, placement file or stdin gives the plain file's results byte for byte; a
// damaged one is one line, exit 2, naming the file and an offset; --out *.gz / *.zst is
// written compressed. Files are made by the gzip and zstd tools, not by hrw.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "cli_runner.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using hrw::test::run_hrw;
using hrw::test::TempDir;

namespace {

// `gzip -c FILE` or `zstd -c FILE` into OUT, through sh (the tools, not hrw's encoder).
void pack(const std::string& tool, const std::string& in, const std::string& out) {
  const std::string cmd = fmt::format("{} -c '{}' > '{}'", tool == "zstd" ? "zstd -q" : tool, in, out);
  REQUIRE(std::system(cmd.c_str()) == 0);
}

std::string unpack(const std::string& tool, const std::string& in) {
  TempDir dir;
  const std::string out = dir.file("plain");
  const std::string cmd = fmt::format("{} -dc '{}' > '{}'", tool, in, out);
  REQUIRE(std::system(cmd.c_str()) == 0);
  return hrw::test::read_file(out);
}

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

}  // namespace

TEST_CASE("compressed keys and placements give the plain files' results, byte for byte", "[cli][compressed]") {
  TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "0", "--out", dir.path()}).exit_code == 0);
  std::string csv = "key,bytes\n";
  for (int i = 0; i < 30000; ++i) csv += fmt::format("user:{},{}\n", i, 1000 + i % 977);
  const std::string plain = dir.write("keys.csv", csv);
  const auto from = dir.file("from.json"), to = dir.file("to.json");

  const auto plain_place = run_hrw({"place", "--cluster", from, "--keys", plain, "--replicas", "2", "--quiet"});
  REQUIRE(plain_place.exit_code == 0);
  REQUIRE(lines(plain_place.out) == 30001);
  const auto plain_plan = run_hrw({"plan", "--from", from, "--to", to, "--keys", plain, "--out", dir.file("p-plain"),
                                   "--max-moves-per-node", "500", "--quiet"});
  REQUIRE(plain_plan.exit_code == 0);
  const std::string plain_moves = hrw::test::read_file(dir.file("p-plain/moves.csv"));

  for (const std::string tool : {"gzip", "zstd"}) {
    INFO(tool);
    const std::string packed = dir.file("keys.csv." + std::string(tool == "gzip" ? "gz" : "zst"));
    pack(tool, plain, packed);
    for (const int threads : {1, 2}) {
      const auto placed = run_hrw({"place", "--cluster", from, "--keys", packed, "--replicas", "2", "--quiet",
                                   "--threads", std::to_string(threads)});
      CHECK(placed.exit_code == 0);
      CHECK(placed.out == plain_place.out);
    }
    // stdin: the bytes decide, with no name at all (lines format: the header is a key).
    const auto piped = run_hrw({"place", "--cluster", from, "--keys", "-", "--keys-format", "csv", "--replicas", "2",
                                "--quiet"},
                               hrw::test::read_file(packed));
    CHECK(piped.exit_code == 0);
    CHECK(piped.out == plain_place.out);

    const std::string out = dir.file(std::string("p-") + tool);
    const auto plan = run_hrw({"plan", "--from", from, "--to", to, "--keys", packed, "--out", out,
                               "--max-moves-per-node", "500", "--quiet"});
    CHECK(plan.exit_code == 0);
    CHECK(hrw::test::read_file(out + "/moves.csv") == plain_moves);

    // A compressed placement file: check and plan --from-placement read it as the plain one.
    const std::string placement = dir.write("placement.csv", plain_place.out);
    const std::string packed_placement = placement + (tool == "gzip" ? ".gz" : ".zst");
    pack(tool, placement, packed_placement);
    const auto checked = run_hrw({"check", "--cluster", from, "--placement", packed_placement, "--format", "json"});
    CHECK(checked.exit_code == 0);
    CHECK_THAT(checked.out, Contains("\"keys\": 30000"));
    const auto resumed = run_hrw({"plan", "--from-placement", packed_placement, "--to", to, "--replicas", "2",
                                  "--out", out + "-resumed", "--quiet"});
    const auto resumed_plain = run_hrw({"plan", "--from-placement", placement, "--to", to, "--replicas", "2",
                                        "--out", out + "-resumed-plain", "--quiet"});
    CHECK(resumed.exit_code == 0);
    CHECK(resumed_plain.exit_code == 0);
    CHECK(hrw::test::read_file(out + "-resumed/moves.csv") == hrw::test::read_file(out + "-resumed-plain/moves.csv"));
  }
}

TEST_CASE("a damaged compressed input is one line, exit 2, naming the file and the offset", "[cli][compressed]") {
  TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "20000", "--out", dir.path()}).exit_code == 0);
  for (const std::string tool : {"gzip", "zstd"}) {
    INFO(tool);
    const std::string packed = dir.file("keys.packed");
    pack(tool, dir.file("keys.txt"), packed);
    const std::string bytes = hrw::test::read_file(packed);
    const std::string cut = dir.write("cut.txt", bytes.substr(0, bytes.size() / 2));
    const auto r = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", cut, "--out", dir.file("o.csv")});
    CHECK(r.exit_code == 2);
    CHECK(r.err == fmt::format("hrw: {}: truncated {} data: the file ends at byte offset {} inside a {}\n", cut,
                               tool, bytes.size() / 2, tool == "gzip" ? "member" : "frame"));
    CHECK_FALSE(std::filesystem::exists(dir.file("o.csv")));
    // Through stdin too, named as stdin.
    const auto piped = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", "-", "--quiet"},
                               bytes.substr(0, bytes.size() / 2));
    CHECK(piped.exit_code == 2);
    CHECK_THAT(piped.err, StartsWith("hrw: <stdin>: truncated " + tool + " data"));
    CHECK(lines(piped.err) == 1);
  }
  const std::string xz = dir.write("keys.xz", std::string("\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46", 12));
  const auto r = run_hrw({"plan", "--from", dir.file("from.json"), "--to", dir.file("to.json"), "--keys", xz, "--out",
                          dir.file("p")});
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, StartsWith("hrw: " + xz + ": xz-compressed: hrw decodes gzip and zstd only"));
}

TEST_CASE("place --out FILE.gz and FILE.zst write compressed files that decode to the plain output", "[cli][compressed]") {
  TempDir dir;
  REQUIRE(run_hrw({"sample", "--keys", "50000", "--out", dir.path()}).exit_code == 0);
  const auto plain = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", dir.file("keys.txt"), "--quiet"});
  REQUIRE(plain.exit_code == 0);
  for (const std::string name : {"placement.csv.gz", "placement.csv.zst"}) {
    INFO(name);
    for (const std::string threads : {"1", "2"}) {
      const auto r = run_hrw({"place", "--cluster", dir.file("from.json"), "--keys", dir.file("keys.txt"), "--out",
                              dir.file(name), "--chunk-size", "1000", "--threads", threads, "--quiet"});
      REQUIRE(r.exit_code == 0);
      const std::string packed = hrw::test::read_file(dir.file(name));
      CHECK(packed.size() < plain.out.size() / 2);
      CHECK(unpack(name.ends_with(".gz") ? "gzip" : "zstd", dir.file(name)) == plain.out);
    }
  }
}
