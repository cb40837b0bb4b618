// KeySource's state, shared by the two files that read keys: key_source.cpp (a whole file,
// stdin or one part of a file) and key_ranges.cpp (a whole regular file in byte ranges on
// many threads). Private to the io layer.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "hrw/key_source.hpp"
#include "byte_reader.hpp"
#include "csv_reader.hpp"

namespace hrw {

namespace io {

constexpr std::size_t kNoColumn = static_cast<std::size_t>(-1);

struct CsvColumns {
  std::size_t key = kNoColumn, bytes = kNoColumn, requests = kNoColumn, count = 0;
  std::uint64_t first_record = 0;  // the byte after the header (0 for lines)
  std::uint64_t first_line = 1;    // the line it starts on
};

// Where a part's records start and end (ByteRange): its first record and the first record
// of the next part, found from the file's bytes around the boundaries.
struct RecordBounds {
  std::uint64_t begin = 0, end = 0;
  CsvColumns cols;  // CSV: the header, read from the file's start
};

// The first record that starts at or after `pos`: after the first LF at or after pos - 1
// outside a quoted field, with `quotes` (CSV) any count of the quotes before pos from a
// point outside quotes with the same parity; or the file's end (`size`). `loaded`: the
// file's bytes from offset `loaded_at` already in memory (ByteReader::load), scanned
// instead of read again where they cover pos - 1 onwards.
std::uint64_t record_start(const ByteReader& file, std::uint64_t pos, std::uint64_t quotes, bool csv,
                           std::uint64_t size, std::string_view loaded = {}, std::uint64_t loaded_at = 0);

// The `byte`s in [begin, end) of a regular file (fewer bytes if it ends first), read with
// pread, so that threads may count pieces of one file through one reader.
std::uint64_t count_byte(const ByteReader& file, std::uint64_t begin, std::uint64_t end, char byte);

}  // namespace io

struct KeySource::Impl {
  std::string path;
  KeyFormat format;
  std::optional<ByteRange> range;  // a part of the file only
  std::vector<std::string> skipped;  // CSV columns to skip (csv_columns.hpp)
  io::RecordBounds bounds;         // the part's records (a part or a range reader only)
  io::ByteReader in;
  io::CsvReader csv{in};
  io::CsvColumns cols;
  std::uint64_t keys = 0;
  // Every total a report prints (per node, moved, stayed) is a part of these sums, so
  // refusing an input whose sums overflow keeps every total right.
  std::uint64_t bytes_sum = 0, requests_sum = 0;

  // A whole file or stdin.
  Impl(const std::string& p, KeyFormat f, const std::vector<std::string>& skipped);
  // One part of a file (ByteRange).
  Impl(const std::string& p, KeyFormat f, const ByteRange& r, const std::vector<std::string>& skipped);
  // A reader of byte ranges of `whole`'s file, whose header `whole` has read
  // (key_ranges.hpp). It parses as a whole-file read does (key_ranges.hpp says why that
  // is exact).
  struct ForRanges {};
  Impl(const Impl& whole, ForRanges);

  // A part that starts past the first record counts its lines from its start.
  bool relative_lines() const { return range && bounds.begin > cols.first_record; }

  // A part's line numbers count from its first record; a whole read's from the file's
  // start. An error in a part is raised again by reading the file from its start through
  // this part, which words it with the file's line (only errors pay for that read).
  [[noreturn]] void raise_with_file_lines() const;

  // Appends up to max_keys keys (in all, in the chunk) from the reader's position.
  void next_lines(KeyChunk& chunk, std::size_t max_keys);
  void next_csv(KeyChunk& chunk, std::size_t max_keys);
  std::uint64_t add_count(std::uint64_t& sum, const std::string& cell, const char* column,
                          std::uint64_t line) const;
};

}  // namespace hrw
