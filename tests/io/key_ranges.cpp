// Keys read in byte ranges (hrw::ByteRange): ranges that tile a file hold its records once,
// in order, with the whole-file read's errors; a file whose quotes break the parity rule
// is refused when read in ranges.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "cli_runner.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "test_scale.hpp"

using hrw::ByteRange;
using hrw::KeyChunk;
using hrw::KeyFormat;
using hrw::KeySource;

namespace {

struct Records {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> bytes;
  bool operator==(const Records&) const = default;
};

void drain(KeySource& src, Records& out, std::size_t chunk) {
  std::uint64_t first = 0;
  for (KeyChunk c; src.next(c, chunk);) {
    REQUIRE(c.first == first);
    first += c.size();
    for (std::size_t i = 0; i < c.size(); ++i) {
      out.keys.emplace_back(c.keys[i]);
      if (src.has_bytes()) out.bytes.push_back(c.bytes[i]);
    }
  }
  REQUIRE(src.keys_read() == first);
}

Records whole(const std::string& path, KeyFormat format) {
  KeySource src(path, format);
  Records r;
  drain(src, r, 7);
  return r;
}

// Ranges cut at `cuts` (sorted, within [0, size]), with the quote counts a caller computes
// from count_quotes over the pieces.
std::vector<ByteRange> ranges_at(const std::string& path, std::vector<std::uint64_t> cuts, std::uint64_t size) {
  cuts.insert(cuts.begin(), 0);
  cuts.push_back(size);
  std::vector<ByteRange> out;
  std::uint64_t quotes = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::uint64_t in_piece = hrw::count_quotes(path, cuts[i], cuts[i + 1]);
    out.push_back({cuts[i], cuts[i + 1], quotes, quotes + in_piece});
    quotes += in_piece;
  }
  return out;
}

Records in_ranges(const std::string& path, KeyFormat format, const std::vector<ByteRange>& ranges,
                  std::size_t chunk) {
  Records r;
  for (const ByteRange& range : ranges) {
    KeySource src(path, format, range);
    drain(src, r, chunk);
  }
  return r;
}

template <class Read>
std::string error_of(Read&& read) {
  try {
    read();
  } catch (const hrw::InputError& e) {
    return e.what();
  }
  return "no error";
}

// A random key: bytes that matter to the formats (LF, CR, comma, quote, NUL) among letters.
std::string random_key(std::mt19937_64& rng, bool lines) {
  static const std::string alphabet = std::string("ab,\"\r\n", 6) + std::string(1, '\0') + "xyz";
  std::string k;
  const std::size_t n = rng() % 6;
  for (std::size_t i = 0; i < n; ++i) {
    char c = alphabet[rng() % alphabet.size()];
    if (lines && c == '\n') c = 'n';
    k += c;
  }
  if (lines && !k.empty() && k.back() == '\r') k.back() = 'r';  // a trailing CR is removed
  return k;
}

// CSV text whose every quote is structural: a field with a special byte is quoted.
std::string csv_field(const std::string& key, std::mt19937_64& rng) {
  const bool special = key.find_first_of(",\"\r\n") != std::string::npos;
  if (!special && rng() % 4) return key;
  std::string out = "\"";
  for (char c : key) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

}  // namespace

TEST_CASE("byte ranges that tile a file hold its records once, in order", "[keys][ranges]") {
  std::mt19937_64 rng(20261203);
  hrw::test::TempDir dir;
  // Every range read allocates its reader's buffers, which a sanitizer's allocator maps and
  // faults in anew each time: HRW_TEST_SCALE (0.25 there) scales the rounds and thins the
  // every-cut pass to one cut in 1 / scale.
  const std::size_t rounds = hrw::test::scaled(300);
  const auto cut_stride = static_cast<std::uint64_t>(std::max(1.0, 1.0 / hrw::test::test_scale()));
  for (std::size_t round = 0; round < rounds; ++round) {
    const bool lines = round % 2 == 0;
    const std::size_t n = rng() % 40;
    std::string text = lines ? "" : (rng() % 2 ? "key,bytes\r\n" : "\"key\",bytes\n");
    for (std::size_t i = 0; i < n; ++i) {
      const std::string key = random_key(rng, lines);
      const char* eol = rng() % 3 ? "\n" : "\r\n";
      text += lines ? key + eol : csv_field(key, rng) + "," + std::to_string(rng() % 1000) + eol;
    }
    if (lines && !text.empty() && rng() % 3 == 0) text.pop_back();  // no final LF
    const std::string path = dir.write(lines ? "keys.txt" : "keys.csv", text);
    const KeyFormat format = lines ? KeyFormat::lines : KeyFormat::csv;
    const Records expected = whole(path, format);
    INFO("round " << round << ": " << text.size() << " bytes");
    for (int split = 0; split < 8; ++split) {
      std::vector<std::uint64_t> cuts(rng() % 6);
      for (auto& c : cuts) c = text.empty() ? 0 : rng() % (text.size() + 1);
      std::sort(cuts.begin(), cuts.end());
      REQUIRE(in_ranges(path, format, ranges_at(path, cuts, text.size()), 1 + rng() % 5) == expected);
    }
    // Every single cut point (every cut_stride-th one, from a varying start), one record per chunk.
    for (std::uint64_t cut = round % cut_stride; cut <= text.size(); cut += cut_stride)
      REQUIRE(in_ranges(path, format, ranges_at(path, {cut}, text.size()), 1) == expected);
  }
}

TEST_CASE("an error in a byte range names the file's line, as the whole read does", "[keys][ranges]") {
  hrw::test::TempDir dir;
  std::string good = "key,bytes\n";
  for (int i = 0; i < 200; ++i) good += (i % 7 ? "k" + std::to_string(i) : "\"a\nb" + std::to_string(i) + "\"") + ",1\n";
  for (const std::string bad : {"x,1,2\n", "y,-3\n", "\"open,1\n", "\"q\"z,1\n"}) {
    const std::string text = good + bad + "k,1\n";
    const std::string path = dir.write("keys.csv", text);
    const std::string expected = error_of([&] { whole(path, KeyFormat::csv); });
    // The header, 200 records, 29 LFs inside quoted fields: the bad record is on line 231.
    REQUIRE_THAT(expected, Catch::Contains("keys.csv: line 231:"));
    for (std::uint64_t cut : {std::uint64_t{5}, std::uint64_t{700}, std::uint64_t{text.size() - 8}}) {
      INFO(bad << " cut at " << cut);
      REQUIRE(error_of([&] { in_ranges(path, KeyFormat::csv, ranges_at(path, {cut}, text.size()), 3); }) ==
              expected);
    }
  }
}

TEST_CASE("a quote inside an unquoted field is refused in byte ranges only", "[keys][ranges]") {
  hrw::test::TempDir dir;
  const std::string text = "key\na\nab\"c\nd\n";
  const std::string path = dir.write("keys.csv", text);
  REQUIRE(whole(path, KeyFormat::csv).keys == std::vector<std::string>{"a", "ab\"c", "d"});
  const std::string error = error_of([&] { in_ranges(path, KeyFormat::csv, ranges_at(path, {9}, text.size()), 2); });
  REQUIRE(error.find("keys.csv: line 3: a quote inside an unquoted field") != std::string::npos);
  REQUIRE(error.find("read this file whole") != std::string::npos);
}

TEST_CASE("byte ranges need a regular file and an ordered range", "[keys][ranges]") {
  hrw::test::TempDir dir;
  const std::string fifo = dir.file("fifo");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  REQUIRE(error_of([&] { KeySource(fifo, KeyFormat::lines, ByteRange{0, 10}); }) ==
          fifo + ": cannot read in byte ranges: not a regular file");
  const std::string path = dir.write("keys.txt", "a\nb\n");
  REQUIRE_THAT(error_of([&] { KeySource(path, KeyFormat::lines, ByteRange{3, 1}); }),
               Catch::Contains("byte range [3, 1) is reversed"));
  REQUIRE_THAT(error_of([&] { hrw::count_quotes(dir.file("missing"), 0, 1); }), Catch::Contains("cannot open"));
  // An end past the file's size is its size; a range past the end holds nothing.
  REQUIRE(in_ranges(path, KeyFormat::lines, {{0, 100}}, 1).keys == std::vector<std::string>{"a", "b"});
  REQUIRE(hrw::count_quotes(dir.write("q.csv", "\"\"x\""), 1, 100) == 2);
}

TEST_CASE("a boundary far inside a long record finds the record's end", "[keys][ranges]") {
  // Records longer than the first window the boundary scan reads (4 KiB, then doubling).
  hrw::test::TempDir dir;
  std::mt19937_64 rng(7);
  std::string lines, csv = "key\n";
  for (int r = 0; r < 6; ++r) {
    std::string key(3000 + rng() % 20000, 'k');
    for (auto& c : key) c = "ab,\"\n"[rng() % 5];
    std::string line = key;
    for (auto& c : line) c = c == '\n' ? 'n' : c;
    lines += line + "\n";
    std::string quoted = "\"";
    for (char c : key) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
    csv += quoted + "\"\n" + "short\n";
  }
  for (const auto& [name, text, format] : {std::tuple{"long.txt", lines, KeyFormat::lines},
                                           std::tuple{"long.csv", csv, KeyFormat::csv}}) {
    const std::string path = dir.write(name, text);
    const Records expected = whole(path, format);
    REQUIRE(expected.keys.size() == (format == KeyFormat::lines ? 6u : 12u));
    for (std::uint64_t step : {std::uint64_t{997}, std::uint64_t{4096}, std::uint64_t{7919}}) {
      std::vector<std::uint64_t> cuts;
      for (std::uint64_t c = step; c < text.size(); c += step) cuts.push_back(c);
      INFO(name << " every " << step << " bytes");
      REQUIRE(in_ranges(path, format, ranges_at(path, cuts, text.size()), 2) == expected);
    }
  }
}
