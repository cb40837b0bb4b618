// Key input formats, streaming chunks, CSV round trips and input errors (library level).
#include <catch2/catch.hpp>

#include <random>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "hrw/progress.hpp"
#include "hrw/targets.hpp"
#include "bulk_support.hpp"

using hrw::KeyChunk;
using hrw::KeyFormat;
using hrw::KeySource;

namespace {

struct ReadResult {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> bytes, requests;
};

ReadResult read_all(const std::string& path, KeyFormat format, std::size_t chunk = hrw::kDefaultChunkKeys) {
  KeySource src(path, format);
  ReadResult r;
  std::uint64_t expected_first = 0;
  for (KeyChunk c; src.next(c, chunk);) {
    REQUIRE(c.size() <= chunk);
    REQUIRE(c.first == expected_first);
    expected_first += c.size();
    for (std::size_t i = 0; i < c.size(); ++i) {
      r.keys.emplace_back(c.keys[i]);
      if (src.has_bytes()) r.bytes.push_back(c.bytes[i]);
      if (src.has_requests()) r.requests.push_back(c.requests[i]);
    }
  }
  REQUIRE(src.keys_read() == r.keys.size());
  return r;
}

std::vector<std::string> lines_of(const std::string& content) {
  hrw::test::TempDir dir;
  return read_all(dir.write("keys.txt", content), KeyFormat::lines).keys;
}

std::string error_of(const std::string& content, KeyFormat format) {
  hrw::test::TempDir dir;
  try {
    read_all(dir.write("keys.csv", content), format);
  } catch (const hrw::InputError& e) {
    return e.what();
  }
  return "no error";
}

using Keys = std::vector<std::string>;

}  // namespace

TEST_CASE("lines format: LF-separated, trailing CR removed, last LF optional", "[io]") {
  CHECK(lines_of("a\n\nb\n") == Keys{"a", "", "b"});
  CHECK(lines_of("a\n\nb") == Keys{"a", "", "b"});
  CHECK(lines_of("") == Keys{});
  CHECK(lines_of("\n") == Keys{""});
  CHECK(lines_of("\n\n") == Keys{"", ""});
  CHECK(lines_of("a\r\nb\r\n") == Keys{"a", "b"});
  CHECK(lines_of("a\r\r\nb\r") == Keys{"a\r", "b"});
  CHECK(lines_of(std::string("\xff\x00z\n", 4)) == Keys{std::string("\xff\x00z", 3)});
  CHECK(lines_of("x,\"y\"\n") == Keys{"x,\"y\""});
}

TEST_CASE("lines format: a key longer than the read buffer", "[io]") {
  const std::string big(5u << 20, 'k');
  CHECK(lines_of("a\n" + big + "\nb") == Keys{"a", big, "b"});
}

// The lines reader finds LFs with a SIMD byte compare (kernels/line_scan.cc) and walks
// the mask bits: on every target, bytes next to LF (0x09, 0x0B, 0x8A, 0x0D) and every
// length around the vector, word and piece sizes must split exactly as a plain search.
TEST_CASE("lines format: random bytes split exactly as a plain LF search, every target", "[io]") {
  struct RestoreTarget {
    ~RestoreTarget() { hrw::force_target(0); }
  } restore;
  std::mt19937_64 rng(20261130);
  const unsigned char tricky[] = {0x09, 0x0B, 0x0D, 0x8A, 0x00, 0xFF, 0x80, 0x7F};
  for (const auto& target : hrw::runnable_targets()) {
    hrw::force_target(target.bits);
    INFO("target " << target.name);
    for (int round = 0; round < 12; ++round) {
      std::string text;
      const std::size_t lines = rng() % 3000;
      for (std::size_t l = 0; l < lines; ++l) {
        const std::size_t len = rng() % 4 == 0 ? rng() % 140 : rng() % 18;
        for (std::size_t j = 0; j < len; ++j) {
          const unsigned char c =
              rng() % 3 == 0 ? tricky[rng() % sizeof tricky] : static_cast<unsigned char>(rng());
          text.push_back(static_cast<char>(c == '\n' ? 'n' : c));
        }
        if (l + 1 < lines || rng() % 2) text.push_back('\n');
      }
      // The reference: split at every LF, drop one trailing CR, no key after a final LF.
      Keys want;
      for (std::size_t pos = 0; pos < text.size();) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos) nl = text.size();
        std::string key = text.substr(pos, nl - pos);
        if (!key.empty() && key.back() == '\r') key.pop_back();
        want.push_back(key);
        pos = nl + 1;
      }
      hrw::test::TempDir dir;
      const std::string path = dir.write("keys.txt", text);
      for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{64}, hrw::kDefaultChunkKeys})
        REQUIRE(read_all(path, KeyFormat::lines, chunk).keys == want);
    }
  }
}

TEST_CASE("the key format follows the file name unless given", "[io]") {
  CHECK(hrw::key_format_for("x.csv") == KeyFormat::csv);
  CHECK(hrw::key_format_for("x.txt") == KeyFormat::lines);
  CHECK(hrw::key_format_for("-") == KeyFormat::lines);
  CHECK(hrw::parse_key_format("csv") == KeyFormat::csv);
  CHECK_THROWS_AS(hrw::parse_key_format("tsv"), hrw::InputError);
}

TEST_CASE("csv format: RFC 4180 quoting, CRLF, optional columns", "[io]") {
  hrw::test::TempDir dir;
  const auto r = read_all(dir.write("k.csv",
                                    "requests,key,bytes\r\n"
                                    "1,plain,10\r\n"
                                    "2,\"a,b\",20\n"
                                    "3,\"say \"\"hi\"\"\",0\n"
                                    "4,\"multi\r\nline\",5\n"
                                    "5,,6\n"
                                    "6,\"\",7"),
                          KeyFormat::csv);
  CHECK(r.keys == Keys{"plain", "a,b", "say \"hi\"", "multi\r\nline", "", ""});
  CHECK(r.bytes == std::vector<std::uint64_t>{10, 20, 0, 5, 6, 7});
  CHECK(r.requests == std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6});
}

TEST_CASE("csv format: a single key column keeps empty lines as empty keys", "[io]") {
  hrw::test::TempDir dir;
  CHECK(read_all(dir.write("k.csv", "key\na\n\nb\n"), KeyFormat::csv).keys == Keys{"a", "", "b"});
}

TEST_CASE("csv round trip of tricky keys through the writer and the reader", "[io]") {
  const auto keys = hrw::test::tricky_keys(2000, 7, true);
  std::string text = "key\n";
  for (auto& k : keys) {
    hrw::csv::append_field(text, k);
    text += "\n";
  }
  hrw::test::TempDir dir;
  CHECK(read_all(dir.write("k.csv", text), KeyFormat::csv).keys == keys);
}

TEST_CASE("chunking does not change what is read", "[io][stream]") {
  const auto keys = hrw::test::tricky_keys(3000, 11, false);
  std::string lines, csv = "key,bytes\n";
  for (std::size_t i = 0; i < keys.size(); ++i) {
    // A key ending in CR would lose it in the lines format; keep those for csv only.
    lines += (keys[i].empty() || keys[i].back() != '\r') ? keys[i] + "\n" : "k\n";
    hrw::csv::append_field(csv, keys[i]);
    csv += "," + std::to_string(i) + "\n";
  }
  hrw::test::TempDir dir;
  const auto lp = dir.write("k.txt", lines), cp = dir.write("k.csv", csv);
  const auto lref = read_all(lp, KeyFormat::lines), cref = read_all(cp, KeyFormat::csv);
  CHECK(cref.keys == keys);
  for (std::size_t chunk : {std::size_t{1}, std::size_t{7}, std::size_t{10000}}) {
    CHECK(read_all(lp, KeyFormat::lines, chunk).keys == lref.keys);
    const auto c = read_all(cp, KeyFormat::csv, chunk);
    CHECK(c.keys == cref.keys);
    CHECK(c.bytes == cref.bytes);
  }
}

TEST_CASE("input errors name the file and the line", "[io][errors]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(error_of("id,bytes\nx,1\n", KeyFormat::csv), Contains("keys.csv: line 1") && Contains("no \"key\" column"));
  CHECK_THAT(error_of("", KeyFormat::csv), Contains("line 1") && Contains("empty CSV"));
  CHECK_THAT(error_of("key,bytes\na,1\nb,-3\n", KeyFormat::csv), Contains("line 3") && Contains("bytes") && Contains("-3"));
  CHECK_THAT(error_of("key,requests\na,1.5\n", KeyFormat::csv), Contains("line 2") && Contains("requests"));
  CHECK_THAT(error_of("key,bytes\na,\n", KeyFormat::csv), Contains("line 2"));
  CHECK_THAT(error_of("key\na\nb\n\"open\nstill\nopen\n", KeyFormat::csv), Contains("line 4") && Contains("never closed"));
  CHECK_THAT(error_of("key\n\"a\"x\n", KeyFormat::csv), Contains("line 2") && Contains("after a closing quote"));
  CHECK_THAT(error_of("key,bytes\na,1\nb\n", KeyFormat::csv), Contains("line 3") && Contains("header has 2"));
  CHECK_THAT(error_of("key,key\n", KeyFormat::csv), Contains("twice"));
  hrw::test::TempDir dir;
  CHECK_THROWS_WITH(KeySource(dir.file("missing.txt"), KeyFormat::lines),
                    Contains("missing.txt: cannot open"));
  CHECK_THROWS_WITH(KeySource(dir.path(), KeyFormat::lines), Contains("is a directory"));
}

TEST_CASE("progress line text", "[io]") {
  using Catch::Matchers::Contains;
  CHECK_THAT(hrw::progress_text(2'500'000, 2.0, 0.25), Contains("2.50M keys") &&
             Contains("1.25M keys/s") && Contains("25%") && Contains("ETA 6s"));
  CHECK_THAT(hrw::progress_text(10, 1.0, std::nullopt), !Contains("ETA"));
}
