// The bulk pipeline reading a regular keys file in byte ranges on several threads
// (io/key_ranges.hpp): whatever the range size, the chunks it consumes hold the keys,
// counts, indices and placements of a one-thread read, in order, and a bad input fails
// with the one-thread read's message (its line included), quotes in plain CSV fields,
// unclosed quotes and overflowing sums included.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <random>
#include <thread>

#include "bulk/stream.hpp"
#include "cli_runner.hpp"
#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "key_source_impl.hpp"
#include "plan_specs.hpp"
#include "test_scale.hpp"

using namespace hrw;

namespace {

// Everything a consume step sees, flattened; or the error the read ended with.
struct Consumed {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> bytes, requests;
  std::vector<std::uint32_t> owners;
  std::string error;
  bool operator==(const Consumed&) const = default;
};

Consumed stream(const std::string& path, KeyFormat format, unsigned threads, std::uint64_t range_bytes,
                std::size_t chunk_keys = 5) {
  static const ClusterView view(test::make_spec(5, true, 1));
  PlaceOptions options;
  options.threads = threads;
  const ValidRequest request = validate_request(view, options);
  Consumed out;
  std::uint64_t next_index = 0, last_offset = 0;
  ChunkHandlers handlers;
  handlers.consume = [&](ChunkWork& work) {
    const KeyChunk& c = work.chunk;
    REQUIRE(c.size() > 0);
    REQUIRE(c.first == next_index);  // numbered in input order, no gaps
    REQUIRE(c.input_offset > last_offset);
    next_index += c.size();
    last_offset = c.input_offset;
    for (std::size_t i = 0; i < c.size(); ++i) {
      out.keys.emplace_back(c.keys[i]);
      out.bytes.push_back(c.bytes_of(i));
      out.requests.push_back(c.requests_of(i));
      out.owners.push_back(work.placements[0].nodes[i]);
    }
  };
  try {
    KeySource source(path, format, {"x\"y"});  // a header name with a quote (below): skipped
    stream_placements(source, {request}, {chunk_keys, range_bytes}, handlers);
    REQUIRE(source.keys_read() == next_index);
    KeyChunk after;
    REQUIRE_FALSE(source.next(after, 10));  // the source is at its end
    struct stat st {};
    REQUIRE(::stat(path.c_str(), &st) == 0);
    if (next_index) REQUIRE(last_offset == static_cast<std::uint64_t>(st.st_size));
  } catch (const InputError& e) {
    out.error = e.what();
  }
  return out;
}

// The one-thread read, then 2 and 3 threads at range sizes from 1 byte up: all equal.
void check_same_as_one_thread(const std::string& path, KeyFormat format, bool expect_error) {
  const Consumed expected = stream(path, format, 1, 0);
  INFO("one thread: " << (expected.error.empty() ? "no error" : expected.error));
  CHECK(expected.error.empty() != expect_error);
  for (unsigned threads : {2u, 3u})
    for (std::uint64_t range_bytes : {1, 2, 3, 7, 64, 1000, 1 << 20}) {
      INFO("threads " << threads << ", ranges of " << range_bytes << " bytes");
      const Consumed got = stream(path, format, threads, range_bytes);
      CHECK(got.error == expected.error);
      // After an error, what was consumed before it depends on the chunking (nothing of it
      // is published: outputs are all or nothing).
      if (!expect_error) CHECK(got == expected);
    }
}

// Bytes that matter to the formats among letters.
std::string random_key(std::mt19937_64& rng, bool lines) {
  static const std::string alphabet = std::string("ab,\"\r\n", 6) + std::string(1, '\0') + "xyz";
  std::string k;
  for (std::size_t n = rng() % 7; n; --n) {
    char c = alphabet[rng() % alphabet.size()];
    if (lines && c == '\n') c = 'n';
    k += c;
  }
  return k;
}

std::string random_lines(std::mt19937_64& rng, std::size_t keys) {
  std::string text;
  for (std::size_t i = 0; i < keys; ++i) text += random_key(rng, true) + (rng() % 3 ? "\n" : "\r\n");
  if (rng() % 2) text += random_key(rng, true);  // a last line without LF
  return text;
}

// CSV records whose quotes are all where RFC 4180 puts them (quoted LFs and CRLF records
// among them), after a header (records[0]).
std::vector<std::string> random_csv_records(std::mt19937_64& rng, std::size_t keys) {
  std::vector<std::string> records = {"key,bytes,requests\n"};
  for (std::size_t i = 0; i < keys; ++i) {
    const std::string key = random_key(rng, false);
    std::string r = (key.find_first_of(",\"\r\n") != std::string::npos || rng() % 4 == 0) ? csv::quoted(key) : key;
    records.push_back(r + "," + std::to_string(rng() % 1000) + "," + std::to_string(rng() % 5) +
                      (rng() % 3 ? "\n" : "\r\n"));
  }
  return records;
}

std::string joined(const std::vector<std::string>& records) {
  std::string text;
  for (const std::string& r : records) text += r;
  return text;
}

std::string random_csv(std::mt19937_64& rng, std::size_t keys) { return joined(random_csv_records(rng, keys)); }

}  // namespace

TEST_CASE("ranges give a one-thread read's keys, order and placements: lines", "[stream][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(41);
  for (int round = 0; round < 12; ++round) {
    INFO("round " << round);
    const std::string path = dir.write("keys.txt", random_lines(rng, test::scaled(1 + rng() % 300, 0.2)));
    check_same_as_one_thread(path, KeyFormat::lines, false);
  }
  for (const char* text : {"", "\n", "\n\n", "a", "a\nb", "a\r\n", "\r\n\r\n"}) {
    INFO("input " << csv::quoted(text));
    check_same_as_one_thread(dir.write("small.txt", text), KeyFormat::lines, false);
  }
}

TEST_CASE("ranges give a one-thread read's keys, counts and order: CSV with quoted LFs", "[stream][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(42);
  for (int round = 0; round < 12; ++round) {
    INFO("round " << round);
    const std::string path = dir.write("keys.csv", random_csv(rng, test::scaled(1 + rng() % 300, 0.2)));
    check_same_as_one_thread(path, KeyFormat::csv, false);
  }
  // A header alone, with or without its LF, and a header whose name holds a quote (a
  // whole-file read accepts it; it counts for no range's parity).
  for (const char* text : {"key\n", "key", "key,bytes\r\n", "\"key\",x\"y\na\"b,1\nc,2\n", "key\n\"a\nb\"\n"}) {
    INFO("input " << csv::quoted(text));
    check_same_as_one_thread(dir.write("small.csv", text), KeyFormat::csv, false);
  }
}

// A range reads its bytes and 4 KiB past its end at once (KeyRanges::read) and finds its
// record starts there; a record that straddles a cut by more than that is scanned on with
// preads, the CSV quote state carried from the loaded bytes.
TEST_CASE("records longer than what a range reads past its end", "[stream][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(45);
  auto long_key = [&](bool lines) {
    std::string k(3000 + rng() % 9000, 'k');
    if (!lines)
      for (int i = 0; i < 6; ++i) k[rng() % k.size()] = "\n\",x"[rng() % 4];
    return k;
  };
  for (int round = 0; round < 3; ++round) {
    INFO("round " << round);
    std::string lines;
    std::vector<std::string> records = {"key,bytes,requests\n"};
    for (int i = 0; i < 24; ++i) {
      const bool is_long = rng() % 2;
      lines += (is_long ? long_key(true) : random_key(rng, true)) + "\n";
      const std::string key = is_long ? long_key(false) : random_key(rng, false);
      records.push_back(csv::quoted(key) + "," + std::to_string(i) + ",1\n");
    }
    for (std::uint64_t range_bytes : {1000, 4096, 10000}) {
      INFO("ranges of " << range_bytes << " bytes");
      const std::string lines_path = dir.write("long.txt", lines), csv_path = dir.write("long.csv", joined(records));
      const Consumed lines_one = stream(lines_path, KeyFormat::lines, 1, 0);
      const Consumed csv_one = stream(csv_path, KeyFormat::csv, 1, 0);
      REQUIRE(lines_one.error.empty());
      REQUIRE(csv_one.error.empty());
      CHECK(stream(lines_path, KeyFormat::lines, 2, range_bytes) == lines_one);
      CHECK(stream(csv_path, KeyFormat::csv, 2, range_bytes) == csv_one);
    }
  }
}

// The two shortcuts of KeyRanges::read, against the plain reads: a record start found
// from loaded bytes (then preads past them, the quote state carried) is the one found by
// preads alone, and a seek into loaded bytes reads what a fresh seek reads.
TEST_CASE("loaded bytes give the record starts and the bytes that reading gives", "[keys][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(46);
  std::vector<std::string> records = random_csv_records(rng, 400);
  for (int i = 0; i < 6; ++i) {  // quoted keys of several KiB, LFs and quotes inside
    std::string key(2000 + rng() % 6000, 'q');
    for (int j = 0; j < 8; ++j) key[rng() % key.size()] = "\n\","[rng() % 3];
    records.insert(records.begin() + 1 + static_cast<std::ptrdiff_t>(rng() % (records.size() - 1)),
                   csv::quoted(key) + ",1,1\n");
  }
  const std::string text = joined(records);
  const std::string path = dir.write("loaded.csv", text);
  const std::uint64_t size = text.size();
  io::ByteReader file(path);
  for (int trial = 0; trial < 2000; ++trial) {
    const std::uint64_t pos = 1 + rng() % size;
    const std::uint64_t quotes = static_cast<std::uint64_t>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(pos), '"'));
    // Half the windows end 1-3 bytes after a quote past pos (a closing quote scanned, its
    // record's LF not yet: the state the preads go on with is inside or outside quotes).
    const std::uint64_t at = trial % 2 ? rng() % size : pos - 1 - std::min<std::uint64_t>(pos - 1, rng() % 64);
    std::size_t length = rng() % 9000;
    if (trial % 2 == 0)
      if (const std::size_t quote = text.find('"', pos + rng() % 4000); quote != std::string::npos)
        length = quote + 1 + rng() % 3 - at;
    const std::string_view loaded = std::string_view(text).substr(at, length);
    INFO("pos " << pos << ", loaded [" << at << ", " << at + loaded.size() << ")");
    for (bool csv : {true, false})
      CHECK(io::record_start(file, pos, quotes, csv, size, loaded, at) == io::record_start(file, pos, quotes, csv, size));
  }
  auto drain = [](io::ByteReader& r) {
    std::string out;
    do {
      out.append(r.cur(), r.end());
      r.consume(static_cast<std::size_t>(r.end() - r.cur()));
    } while (r.refill());
    return out;
  };
  io::ByteReader ranges(path, 0, 0);
  for (int trial = 0; trial < 500; ++trial) {
    const std::uint64_t offset = rng() % size, begin = rng() % (size + 1);
    const std::uint64_t end = begin + rng() % (size + 10 - begin);
    const std::string_view got = ranges.load(offset, rng() % 20000);
    REQUIRE(got == std::string_view(text).substr(offset, got.size()));
    ranges.seek(begin, end);
    INFO("loaded [" << offset << ", " << offset + got.size() << "), read [" << begin << ", " << end << ")");
    CHECK(ranges.consumed() == begin);
    CHECK(drain(ranges) == text.substr(begin, end - begin));
    CHECK(ranges.consumed() == std::min(end, size));
  }
}

// A quote inside an unquoted field breaks the parity the ranges are cut by: a range then
// fails (and one thread reads on from it) or a cut is skipped, so the file is accepted
// exactly as a one-thread read accepts it, records after the quote included.
TEST_CASE("quotes inside unquoted CSV fields read as one thread reads them", "[stream][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(43);
  for (int round = 0; round < 8; ++round) {
    std::vector<std::string> records = random_csv_records(rng, test::scaled(200, 0.2));
    // Quotes in plain fields, an odd number of them in some rounds.
    for (int q = 0; q < 1 + round % 3; ++q)
      records.insert(records.begin() + 1 + static_cast<std::ptrdiff_t>(rng() % records.size()),
                     q == 1 ? "a\"b\"\"c,1,1\n" : "ab\"c,1,1\n");
    INFO("round " << round);
    check_same_as_one_thread(dir.write("stray.csv", joined(records)), KeyFormat::csv, false);
  }
  // After one such quote every parity is off: quoted keys whose lines look like records
  // would be read as records by a range cut inside them.
  std::string text = "key,bytes,requests\nab\"c,1,1\n";
  for (int i = 0; i < 40; ++i) text += "\"p\nq,7,7\nr\",1,1\nplain,2,2\n";
  check_same_as_one_thread(dir.write("shifted.csv", text), KeyFormat::csv, false);
}

TEST_CASE("a bad input in a range fails with the one-thread read's message and line", "[stream][ranges]") {
  test::TempDir dir;
  std::mt19937_64 rng(44);
  const std::vector<std::string> good = random_csv_records(rng, test::scaled(150, 0.2));
  const std::string max = std::to_string(UINT64_MAX);
  const std::vector<std::string> bad_records = {
      "a,1\n",                       // a field missing
      "a,x,1\n",                     // bytes not a count
      "a,1,-1\n",                    // requests negative
      "\"a\"b,1,1\n",                // text after a closing quote
      "a," + max + ",1\nb," + max + ",1\n",  // the bytes sum overflows
  };
  for (const std::string& bad : bad_records) {
    for (std::size_t at : {std::size_t{1}, good.size() / 2, good.size()}) {
      std::vector<std::string> records = good;
      records.insert(records.begin() + static_cast<std::ptrdiff_t>(at), bad);
      const std::string text = joined(records);
      INFO("record " << csv::quoted(bad) << " at record " << at);
      const std::string path = dir.write("bad.csv", text);
      check_same_as_one_thread(path, KeyFormat::csv, true);
      CHECK(stream(path, KeyFormat::csv, 2, 5).error.find("bad.csv: line ") != std::string::npos);
    }
  }
  // A quote never closed: the rest of the file is one field.
  std::vector<std::string> open = good;
  open.insert(open.begin() + static_cast<std::ptrdiff_t>(good.size() / 3), "\"abc,1,1\n");
  check_same_as_one_thread(dir.write("open.csv", joined(open)), KeyFormat::csv, true);
}

// The CLI: --threads 2 writes the files --threads 1 writes, for a regular file (read in
// ranges) and for a FIFO (read serially).
TEST_CASE("hrw place and plan at two threads write the one-thread files", "[stream][ranges][cli]") {
  test::TempDir dir;
  std::mt19937_64 rng(45);
  const std::vector<std::string> records = random_csv_records(rng, test::scaled(20000, 0.1));
  const std::string keys = dir.write("keys.csv", joined(records));
  const std::string a = dir.write("a.json", R"({"version": 1, "nodes": ["n1", "n2", "n3", "n4"]})");
  const std::string b = dir.write("b.json", R"({"version": 2, "nodes": ["n1", "n2", "n3", "n4", "n5"]})");
  for (const char* threads : {"1", "2"}) {
    const std::string t = threads;
    auto r = test::run_hrw({"place", "--cluster", a, "--keys", keys, "--out", dir.file("place" + t + ".csv"),
                            "--quiet", "--threads", t});
    REQUIRE(r.exit_code == 0);
    r = test::run_hrw({"plan", "--from", a, "--to", b, "--keys", keys, "--out", dir.file("plan" + t), "--quiet",
                       "--threads", t});
    REQUIRE(r.exit_code == 0);
  }
  CHECK(test::read_file(dir.file("place1.csv")) == test::read_file(dir.file("place2.csv")));
  // A bad record far into the file: exit 2 and the one-thread message at both counts.
  std::vector<std::string> bad_records = records;
  bad_records.insert(bad_records.end() - 2, "a,x,1\n");
  const std::string bad = dir.write("bad.csv", joined(bad_records));
  std::string first_error;
  for (const char* t : {"1", "2"}) {
    const auto r = test::run_hrw({"place", "--cluster", a, "--keys", bad, "--out", dir.file("bad-out.csv"),
                                  "--quiet", "--threads", t});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("bad.csv: line ") != std::string::npos);
    if (first_error.empty()) first_error = r.err;
    CHECK(r.err == first_error);
  }
  for (const char* f : {"moves.csv", "summary.json"})
    CHECK(test::read_file(dir.file(std::string("plan1/") + f)) == test::read_file(dir.file(std::string("plan2/") + f)));

  const std::string fifo = dir.file("keys-fifo.csv");
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  std::thread feed([&] {
    const std::string text = test::read_file(keys);
    FILE* f = std::fopen(fifo.c_str(), "w");
    if (!f) return;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
  });
  const auto r = test::run_hrw({"place", "--cluster", a, "--keys", fifo, "--out", dir.file("place-fifo.csv"),
                                "--quiet", "--threads", "2"});
  feed.join();
  REQUIRE(r.exit_code == 0);
  CHECK(test::read_file(dir.file("place-fifo.csv")) == test::read_file(dir.file("place1.csv")));
}
