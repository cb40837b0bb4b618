// Compressed inputs and outputs (docs/errors.md, "Compressed files"): files made by zlib and
// libzstd's own APIs (not hrw's encoder) read back key for key; every cut or flipped byte of
// a stream is an error naming the file and an offset, never fewer keys at success; outputs
// named .gz/.zst decode (with zlib and libzstd) to exactly what was written.
#include <catch2/catch.hpp>
#include <zlib.h>
#include <zstd.h>

#include <filesystem>
#include <random>
#include <thread>

#include <fmt/format.h>

#include "cli_runner.hpp"
#include "hrw/atomic_file.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "test_scale.hpp"

using hrw::KeyChunk;
using hrw::KeyFormat;
using hrw::KeySource;

namespace {

std::vector<std::string> keys_of(const std::string& path, KeyFormat format = KeyFormat::lines) {
  KeySource src(path, format);
  std::vector<std::string> keys;
  for (KeyChunk c; src.next(c, 1000);)
    for (std::size_t i = 0; i < c.size(); ++i) keys.emplace_back(c.keys[i]);
  return keys;
}

std::string read_error(const std::string& path) {
  try {
    keys_of(path);
  } catch (const hrw::InputError& e) {
    return e.what();
  }
  return "no error";
}

// One gzip member of `plain` at `level`, by zlib's API.
std::string gzip_member(std::string_view plain, int level) {
  z_stream z{};
  REQUIRE(deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK);
  std::string out(deflateBound(&z, plain.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(plain.data()));
  z.avail_in = static_cast<uInt>(plain.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  REQUIRE(deflate(&z, Z_FINISH) == Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

std::string zstd_frame(std::string_view plain, int level) {
  std::string out(ZSTD_compressBound(plain.size()), '\0');
  const std::size_t n = ZSTD_compress(out.data(), out.size(), plain.data(), plain.size(), level);
  REQUIRE_FALSE(ZSTD_isError(n));
  out.resize(n);
  return out;
}

// RFC 8878 3.1.2: magic 0x184D2A5?, a 4-byte size, that many bytes a decoder skips.
std::string skippable_frame(std::string_view payload) {
  std::string out = "\x50\x2a\x4d\x18";
  for (int i = 0; i < 4; ++i) out += static_cast<char>((payload.size() >> (8 * i)) & 0xff);
  return out + std::string(payload);
}

std::string gunzip(const std::string& packed) {
  z_stream z{};
  REQUIRE(inflateInit2(&z, 15 + 16) == Z_OK);
  std::string out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(packed.data()));
  z.avail_in = static_cast<uInt>(packed.size());
  char buf[1 << 16];
  while (z.avail_in > 0) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    const int r = inflate(&z, Z_NO_FLUSH);
    REQUIRE((r == Z_OK || r == Z_STREAM_END));
    out.append(buf, sizeof buf - z.avail_out);
    if (r == Z_STREAM_END) inflateReset(&z);  // the next member
  }
  inflateEnd(&z);
  return out;
}

std::string unzstd(const std::string& packed) {
  ZSTD_DCtx* d = ZSTD_createDCtx();
  ZSTD_inBuffer in{packed.data(), packed.size(), 0};
  std::string out;
  char buf[1 << 16];
  std::size_t last = 1;
  while (in.pos < in.size || last > 0) {
    ZSTD_outBuffer o{buf, sizeof buf, 0};
    last = ZSTD_decompressStream(d, &o, &in);
    REQUIRE_FALSE(ZSTD_isError(last));
    out.append(buf, o.pos);
    if (o.pos == 0 && in.pos == in.size) break;
  }
  ZSTD_freeDCtx(d);
  REQUIRE(last == 0);
  return out;
}

// Random keys, one per line, with the odd CR, empty line and byte >= 0x80.
std::string random_lines(std::mt19937_64& rng, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t len = rng() % 40;
    for (std::size_t j = 0; j < len; ++j) {
      char c = static_cast<char>(rng() % 256);
      if (c == '\n' || c == '\r') c = 'x';
      text += c;
    }
    text += '\n';
  }
  return text;
}

// `plain` cut at random places into pieces, each compressed alone: a multi-member or
// multi-frame stream, as parallel compressors (pigz, pzstd) write.
std::string packed_in_pieces(std::mt19937_64& rng, const std::string& plain, bool zstd) {
  std::string out;
  for (std::size_t at = 0; at < plain.size() || out.empty();) {
    const std::size_t n = std::min<std::size_t>(plain.size() - at, rng() % (plain.size() / 3 + 2));
    const std::string_view piece(plain.data() + at, n);
    out += zstd ? zstd_frame(piece, 1 + static_cast<int>(rng() % 19)) : gzip_member(piece, static_cast<int>(rng() % 10));
    if (zstd && rng() % 4 == 0) out += skippable_frame("skipped, not keys\n");
    at += n;
  }
  return out;
}

}  // namespace

TEST_CASE("gzip and zstd files, in one or many members and frames, read as their text", "[io][compressed]") {
  std::mt19937_64 rng(20261207);
  hrw::test::TempDir dir;
  for (int round = 0; round < 40; ++round) {
    const std::string plain = random_lines(rng, rng() % 3000);
    const std::vector<std::string> expected = keys_of(dir.write("plain.txt", plain));
    for (const bool zstd : {false, true}) {
      const std::string packed = round % 2 == 0 ? (zstd ? zstd_frame(plain, 3) : gzip_member(plain, 6))
                                                : packed_in_pieces(rng, plain, zstd);
      // The name says nothing: the first bytes decide.
      INFO("round " << round << (zstd ? " zstd" : " gzip") << ", " << packed.size() << " bytes");
      CHECK(keys_of(dir.write("keys.txt", packed)) == expected);
    }
  }
}

TEST_CASE("a compressed CSV is read as CSV, its columns and sums as the plain file's", "[io][compressed]") {
  hrw::test::TempDir dir;
  std::string csv = "key,bytes\n";
  for (int i = 0; i < 5000; ++i) csv += fmt::format("\"k,{}\",{}\n", i, i * 7);
  const std::string gz = dir.write("keys.csv.gz", gzip_member(csv, 9));
  CHECK(hrw::key_format_for(gz) == KeyFormat::csv);
  CHECK(hrw::key_format_for(dir.file("keys.csv.zst")) == KeyFormat::csv);
  KeySource src(gz, KeyFormat::csv);
  REQUIRE(src.has_bytes());
  std::uint64_t sum = 0, count = 0;
  for (KeyChunk c; src.next(c, 777);)
    for (std::size_t i = 0; i < c.size(); ++i, ++count) {
      CHECK(c.keys[i] == fmt::format("k,{}", count));
      sum += c.bytes[i];
    }
  CHECK(count == 5000);
  CHECK(sum == 7ull * 4999 * 5000 / 2);
  CHECK(std::string(hrw::file_compression(gz)) == "gzip");
  CHECK(hrw::file_compression(dir.write("plain.csv", csv)) == nullptr);
}

TEST_CASE("every cut of a compressed stream is an error naming the file and an offset", "[io][compressed]") {
  std::mt19937_64 rng(7);
  hrw::test::TempDir dir;
  const std::string plain = random_lines(rng, 4000);
  for (const bool zstd : {false, true}) {
    const std::string packed = zstd ? zstd_frame(plain, 5) : gzip_member(plain, 6);
    const std::size_t step = std::max<std::size_t>(1, packed.size() / hrw::test::scaled(60));
    // Cuts past the magic bytes (a shorter head is read as text, as any text may be).
    for (std::size_t cut = 10; cut < packed.size(); cut += step + rng() % step) {
      const std::string path = dir.write(fmt::format("cut-{}", cut), packed.substr(0, cut));
      const std::string error = read_error(path);
      INFO((zstd ? "zstd" : "gzip") << " cut at " << cut << " of " << packed.size() << ": " << error);
      CHECK_THAT(error, Catch::StartsWith(path + ": "));
      CHECK_THAT(error, Catch::Contains("byte offset"));
      CHECK_THAT(error, Catch::Contains(zstd ? "zstd data" : "gzip data"));
    }
  }
}

TEST_CASE("a flipped byte of a compressed stream is an error, never other keys", "[io][compressed]") {
  std::mt19937_64 rng(11);
  hrw::test::TempDir dir;
  const std::string plain = random_lines(rng, 3000);
  for (const bool zstd : {false, true}) {
    // zstd's frames carry a checksum only when asked: these do, as `zstd` writes by default.
    std::string packed;
    if (zstd) {
      ZSTD_CCtx* c = ZSTD_createCCtx();
      ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
      packed.resize(ZSTD_compressBound(plain.size()));
      packed.resize(ZSTD_compress2(c, packed.data(), packed.size(), plain.data(), plain.size()));
      ZSTD_freeCCtx(c);
    } else {
      packed = gzip_member(plain, 6);
    }
    for (int trial = 0; trial < 30; ++trial) {
      std::string bad = packed;
      const std::size_t at = 12 + rng() % (bad.size() - 12);  // past the magic and header
      bad[at] = static_cast<char>(bad[at] ^ (1 + rng() % 255));
      const std::string path = dir.write("bad", bad);
      const std::string error = read_error(path);
      INFO((zstd ? "zstd" : "gzip") << " byte " << at << " flipped: " << error);
      CHECK_THAT(error, Catch::StartsWith(path + ": "));
      CHECK_THAT(error, Catch::Contains("byte offset"));
    }
  }
}

TEST_CASE("xz, bzip2 and lz4 files are refused, naming the tool that decodes them", "[io][compressed]") {
  hrw::test::TempDir dir;
  const std::vector<std::pair<std::string, std::string>> heads = {
      {"xz", std::string("\xfd" "7zXZ\0\0\x04\xe6\xd6\xb4\x46", 12)},
      {"bzip2", "BZh91AY&SY\x12\x34rest"},
      {"lz4", "\x04\x22\x4d\x18\x64\x40\xa7rest"},
  };
  for (const auto& [tool, head] : heads) {
    const std::string path = dir.write("keys.txt", head);
    CHECK(read_error(path) == path + ": " + tool + "-compressed: hrw decodes gzip and zstd only; decode it first (" +
                                  tool + " -dc FILE | hrw ... -) or recompress it");
  }
  // Text that merely starts like one of them is text.
  CHECK(keys_of(dir.write("keys.txt", "BZh9 is a key\n")) == std::vector<std::string>{"BZh9 is a key"});
}

TEST_CASE("a compressed file has no byte ranges", "[io][compressed]") {
  hrw::test::TempDir dir;
  const std::string path = dir.write("keys.txt", gzip_member("a\nb\nc\n", 6));
  const std::string expected = path + ": gzip-compressed: a compressed file is read whole, not in byte ranges";
  CHECK_THROWS_WITH(hrw::count_quotes(path, 0, 10), expected);
  CHECK_THROWS_WITH(KeySource(path, KeyFormat::lines, hrw::ByteRange{0, 3}), expected);
}

TEST_CASE("outputs named .gz and .zst are written compressed, whole, by write() and by pieces", "[io][compressed]") {
  std::mt19937_64 rng(3);
  hrw::test::TempDir dir;
  for (const std::string name : {"out.csv.gz", "out.csv.zst", "empty.gz", "empty.zst"}) {
    const bool empty = name.starts_with("empty");
    std::string expected;
    hrw::AtomicFile out(dir.file(name));
    if (!empty) {
      // write() in small and in over-a-MiB pieces, then pieces reserved and written by threads.
      for (int i = 0; i < 200; ++i) {
        const std::string piece = random_lines(rng, i % 70 == 0 ? 70000 : 30);
        out.write(piece);
        expected += piece;
      }
      std::vector<std::string> pieces(16);
      std::vector<std::uint64_t> at(pieces.size());
      for (std::size_t i = 0; i < pieces.size(); ++i) {
        pieces[i] = random_lines(rng, 2000);
        expected += pieces[i];
        out.encode_piece(pieces[i]);
        at[i] = out.reserve(pieces[i].size());
      }
      std::vector<std::thread> writers;
      for (std::size_t i = pieces.size(); i-- > 0;) writers.emplace_back([&, i] { out.write_at(at[i], pieces[i]); });
      for (auto& t : writers) t.join();
      out.write("tail\n");
      expected += "tail\n";
    }
    CHECK_FALSE(std::filesystem::exists(dir.file(name)));  // published only by commit
    out.commit();
    const std::string packed = hrw::test::read_file(dir.file(name));
    INFO(name);
    REQUIRE(packed.size() >= 4);
    CHECK((name.ends_with(".gz") ? gunzip(packed) : unzstd(packed)) == expected);
    CHECK(packed.substr(0, 2) == (name.ends_with(".gz") ? "\x1f\x8b" : "\x28\xb5"));
    // And hrw reads back what it wrote.
    CHECK(keys_of(dir.file(name)) == keys_of(dir.write("plain.txt", expected)));
    std::filesystem::remove(dir.file(name));
  }
}
