// Byte ranges of a key file (split_key_file, KeySource over a ByteRange) and the parallel
// reading of regular files in the bulk pipeline: the same keys, indices, line numbers and
// first error as the whole-file reader.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "hrw/place.hpp"
#include "plan_specs.hpp"
#include "test_scale.hpp"
#include "test_support_bulk.hpp"

using hrw::ByteRange;
using hrw::KeyChunk;
using hrw::KeyFormat;
using hrw::KeySource;

namespace {

struct Read {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> bytes, requests;
  bool operator==(const Read&) const = default;
};

// Appends the keys of `src` to `r`, checking that indices run on from `first`.
void drain(KeySource& src, Read& r, std::uint64_t first, std::size_t chunk) {
  for (KeyChunk c; src.next(c, chunk);) {
    REQUIRE(c.first == first + (r.keys.size() - first));
    for (std::size_t i = 0; i < c.size(); ++i) {
      r.keys.emplace_back(c.keys[i]);
      if (src.has_bytes()) r.bytes.push_back(c.bytes[i]);
      if (src.has_requests()) r.requests.push_back(c.requests[i]);
    }
  }
}

Read read_whole(const std::string& path, KeyFormat format) {
  KeySource src(path, format);
  Read r;
  drain(src, r, 0, 5);
  return r;
}

// Reads every range of the split alone and checks the split's promises against the text.
Read read_split(const std::string& path, const std::string& text, KeyFormat format, std::size_t parts) {
  const std::vector<ByteRange> ranges = hrw::split_key_file(path, format, parts);
  REQUIRE(!ranges.empty());
  REQUIRE(ranges.size() <= std::max<std::size_t>(parts, 1));
  CHECK(ranges.front().begin == 0);
  CHECK(ranges.back().end == text.size());
  Read r;
  for (std::size_t k = 0; k < ranges.size(); ++k) {
    const ByteRange& range = ranges[k];
    if (k) {
      CHECK(range.begin == ranges[k - 1].end);
      CHECK(range.begin > ranges[k - 1].begin);
      CHECK(text[range.begin - 1] == '\n');  // a range starts after an LF
      const auto lfs = std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(range.begin), '\n');
      CHECK(range.first_line == static_cast<std::uint64_t>(lfs) + 1);
    }
    REQUIRE(range.first_key == r.keys.size());
    KeySource src(path, format, range);
    drain(src, r, range.first_key, 3);
    CHECK(src.keys_read() == r.keys.size());
  }
  return r;
}

// Random key text: short keys of bytes that matter to the readers (LF, CR, quotes, commas).
std::string random_key(std::mt19937_64& rng, bool newlines) {
  const std::string chars = newlines ? "ab\",\r\n x" : "ab\",\r x";
  std::string key;
  for (std::size_t n = rng() % 6; n; --n) key += chars[rng() % chars.size()];
  return key;
}

std::string lines_text(std::mt19937_64& rng, std::size_t n) {
  std::string text;
  for (std::size_t i = 0; i < n; ++i) {
    std::string key = random_key(rng, false);
    key.erase(std::remove(key.begin(), key.end(), '\r'), key.end());
    text += key;
    text += rng() % 3 == 0 ? "\r\n" : "\n";
  }
  if (rng() % 2 && !text.empty()) text.pop_back();  // no final LF (or a lone CR)
  return text;
}

std::string csv_text(std::mt19937_64& rng, std::size_t n, bool bytes, bool requests) {
  std::string text = "\"k\"\"ey\nx\",key";
  if (bytes) text += ",bytes";
  if (requests) text += ",requests";
  text += "\r\n";
  for (std::size_t i = 0; i < n; ++i) {
    text += rng() % 2 ? ("\"a" + std::string(rng() % 2, '\n') + "\"") : std::string("p");
    text += "," + hrw::csv::quoted(random_key(rng, true));
    if (bytes) text += "," + std::to_string(rng() % 1000);
    if (requests) text += "," + std::to_string(rng() % 7);
    text += rng() % 2 ? "\r\n" : "\n";
  }
  if (rng() % 2) text.pop_back();
  return text;
}

std::string error_of(const std::function<void()>& run) {
  try {
    run();
  } catch (const hrw::InputError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("a file read by ranges gives the keys of the whole-file read", "[keys][ranges]") {
  hrw::test::TempDir dir;
  std::mt19937_64 rng(22);
  const std::size_t rounds = hrw::test::scaled(40, hrw::test::kEmulatedScale);
  for (std::size_t round = 0; round < rounds; ++round) {
    const std::size_t n = round == 0 ? 0 : rng() % 200;
    const bool csv = round % 2 == 1;
    const std::string text = csv ? csv_text(rng, n, round % 4 == 1, round % 3 == 0) : lines_text(rng, n);
    const std::string path = dir.write(csv ? "keys.csv" : "keys.txt", text);
    const KeyFormat format = csv ? KeyFormat::csv : KeyFormat::lines;
    INFO("round " << round << ": " << text.size() << " bytes");
    const Read whole = read_whole(path, format);
    for (std::size_t parts : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{64}, text.size() + 3})
      CHECK(read_split(path, text, format, parts) == whole);
  }
}

TEST_CASE("empty files and files of one record split into one range", "[keys][ranges]") {
  hrw::test::TempDir dir;
  const auto one = hrw::split_key_file(dir.write("empty.txt", ""), KeyFormat::lines, 8);
  REQUIRE(one.size() == 1);
  CHECK((one[0].begin == 0 && one[0].end == 0 && one[0].first_key == 0));
  CHECK(hrw::split_key_file(dir.write("one.txt", "abcdefgh"), KeyFormat::lines, 4).size() == 1);
  CHECK(hrw::split_key_file(dir.write("q.csv", "key\n\"a\nb\nc\nd\"\n"), KeyFormat::csv, 4).size() == 1);
  CHECK_THROWS_WITH(hrw::split_key_file("-", KeyFormat::lines, 2), Catch::Contains("read in order"));
}

TEST_CASE("a quote inside an unquoted CSV field makes the file one range", "[keys][ranges]") {
  // The reader takes a"b as the three bytes a"b: quote parity cannot place the cuts.
  hrw::test::TempDir dir;
  std::string text = "key\n";
  for (int i = 0; i < 50; ++i) text += i == 3 ? "a\"b\n" : "\"k\n" + std::to_string(i) + "\"\n";
  const std::string path = dir.write("bare.csv", text);
  CHECK(hrw::split_key_file(path, KeyFormat::csv, 10).size() == 1);
  CHECK(read_split(path, text, KeyFormat::csv, 10) == read_whole(path, KeyFormat::csv));
  // Without it the same file splits.
  text = "key\n";
  for (int i = 0; i < 50; ++i) text += "\"k\n\"\"" + std::to_string(i) + "\"\n";
  const std::string quoted = dir.write("quoted.csv", text);
  CHECK(hrw::split_key_file(quoted, KeyFormat::csv, 10).size() == 10);
  CHECK(read_split(quoted, text, KeyFormat::csv, 10) == read_whole(quoted, KeyFormat::csv));
}

TEST_CASE("read in parallel, the first error in input order is reported at its line", "[keys][ranges][stream]") {
  hrw::test::TempDir dir;
  const hrw::ClusterView view(hrw::test::make_spec(5, false, 1));
  // Rows of "key,bytes"; `bad` rows get three fields. Line of row i: i + 2.
  auto run = [&](const std::vector<std::size_t>& bad, unsigned threads, const std::string& last_bytes) {
    std::string text = "key,bytes\n";
    for (std::size_t i = 0; i < 400; ++i) {
      const bool is_bad = std::find(bad.begin(), bad.end(), i) != bad.end();
      text += "\"k\n" + std::to_string(i) + "\"," + (i == 399 ? last_bytes : "1") + (is_bad ? ",x" : "") + "\n";
    }
    const std::string path = dir.write("rows.csv", text);
    hrw::PlaceJob job;
    job.keys = {path, std::nullopt, 2};
    job.place.threads = threads;
    job.out = dir.file("out.csv");
    bool hb = false, hr = false;
    return error_of([&] { hrw::run_place(view, job, hb, hr); });
  };
  for (unsigned threads : {1u, 2u, 3u}) {
    INFO(threads << " threads");
    CHECK_THAT(run({350}, threads, "1"), Catch::EndsWith("rows.csv: line 702: 3 field(s), but the header has 2"));
    CHECK_THAT(run({5, 350}, threads, "1"), Catch::EndsWith("rows.csv: line 12: 3 field(s), but the header has 2"));
    // The bytes total overflows at the last row; an earlier malformed row still wins.
    CHECK_THAT(run({}, threads, "18446744073709551615"),
               Catch::EndsWith("rows.csv: line 800: the bytes total exceeds 2^64 - 1"));
    CHECK_THAT(run({390}, threads, "18446744073709551615"), Catch::EndsWith("rows.csv: line 782: 3 field(s), but the header has 2"));
    CHECK(run({}, threads, "1") == "no error");
  }
}
