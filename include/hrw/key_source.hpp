// Streaming key input for bulk commands: a file or stdin, read in bounded chunks so memory
// stays flat however many keys there are.
//
// Formats:
//  - lines: one key per line, LF-separated; one trailing CR is removed (CRLF files work);
//    the last line may lack its LF; an empty line is the empty key. A final LF does not
//    start another key, so "a\n\nb\n" holds 3 keys.
//  - csv: RFC 4180 with a header; a `key` column, optional `bytes` and `requests` columns
//    (non-negative integers) that reports add up per node. Records end with LF or CRLF.
// Keys are bytes: nothing is trimmed, decoded or validated as UTF-8.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "hrw/key_batch.hpp"

namespace hrw {

enum class KeyFormat { lines, csv };

// "lines" or "csv"; InputError otherwise.
KeyFormat parse_key_format(std::string_view text);
// csv for a name ending in ".csv", lines otherwise (stdin included); InputError for
// ".json", ".jsonl" and ".ndjson" (there is no JSON keys format: see the source).
KeyFormat key_format_for(std::string_view path);

// Large enough that per-chunk costs (pipeline hand-off, counter folding) vanish, small
// enough that the two chunks per thread in flight stay in cache and cost few first-touch
// page faults. Measured on the plan benchmark (bench/PLAN.md): 4096 to 16384 keys per
// chunk are equally fast, 65536 was ~15% slower.
inline constexpr std::size_t kDefaultChunkKeys = std::size_t{1} << 13;

// The longest key (lines) or CSV record accepted: an input without line ends (`cat
// /dev/zero`) is refused naming its line instead of filling the memory.
inline constexpr std::size_t kMaxKeyBytes = std::size_t{64} << 20;

struct KeyChunk {
  KeyBatch keys;
  std::vector<std::uint64_t> bytes;     // one per key when the input has a bytes column
  std::vector<std::uint64_t> requests;  // one per key when the input has a requests column
  std::uint64_t first = 0;              // input index of keys[0]
  std::uint64_t input_offset = 0;       // input bytes consumed once this chunk was read

  std::size_t size() const { return keys.size(); }
  void clear();
  std::uint64_t bytes_of(std::size_t i) const { return bytes.empty() ? 0 : bytes[i]; }
  std::uint64_t requests_of(std::size_t i) const { return requests.empty() ? 0 : requests[i]; }
};

// A part of a regular key file: the records that start at byte offsets [begin, end). A
// reader of a range reads exactly the keys the whole-file reader reads there, with the same
// input indices and line numbers, given the range's first key index and first line (what
// split_key_file computes). Ranges always begin at a record start; end is the next range's
// begin (a record that starts before end and runs past it belongs to this range).
// csv: the header is read from the start of the file by every range reader; a range that
// begins at 0 starts after it.
struct ByteRange {
  std::uint64_t begin = 0;
  std::uint64_t end = static_cast<std::uint64_t>(-1);
  std::uint64_t first_key = 0;   // input index of the first key at or after begin
  std::uint64_t first_line = 1;  // line (1-based) that begin is on
  // The bytes/requests column totals of the keys before begin, when known: a sum that
  // overflows is then refused at its line, as the whole-file reader does.
  std::uint64_t bytes_before = 0, requests_before = 0;
};

// Splits a regular key file into at most `parts` (>= 1) ranges of about equal size that
// start at record starts, with each range's first key index and first line; the ranges
// cover the file in order and none is empty (an empty file is one range [0, 0)). Two
// parallel passes over the file, no parsing:
//  - lines: a range starts after an LF;
//  - csv: a range starts after an LF outside quotes. RFC 4180 makes that decidable from
//    the count of '"' bytes before it (quote parity; "" counts two). The reader also takes
//    a '"' inside an unquoted field as a plain byte, which breaks parity; the pass checks
//    that every quote opening at even parity starts a field, and when one does not, the
//    file is one range (read serially, still exact).
// Throws InputError for stdin, pipes and FIFOs (they can only be read in order).
std::vector<ByteRange> split_key_file(const std::string& path, KeyFormat format, std::size_t parts);

class KeySource {
 public:
  // "-" reads stdin. Throws InputError naming the file when it is missing, a directory or
  // unreadable, and (csv) when the header has no key column.
  KeySource(const std::string& path, KeyFormat format);
  // Reads only `range` of a regular file (InputError otherwise): the keys whose records
  // start in [begin, end), numbered from range.first_key and range.first_line.
  KeySource(const std::string& path, KeyFormat format, const ByteRange& range);
  ~KeySource();
  KeySource(const KeySource&) = delete;
  KeySource& operator=(const KeySource&) = delete;

  // Replaces `chunk` with the next keys, at most max_keys (>= 1). False when none are left.
  // Malformed input throws InputError "FILE: line N: ...".
  bool next(KeyChunk& chunk, std::size_t max_keys);

  // Reads `range` next (regular files only), reusing the open file and buffers.
  void seek(const ByteRange& range);

  // A regular file named by path (not stdin): what split_key_file and seek accept.
  bool splittable() const;
  KeyFormat format() const;
  const std::string& path() const;

  bool has_bytes() const;
  bool has_requests() const;
  const std::string& name() const;  // the path, or "<stdin>"
  std::uint64_t keys_read() const;
  // Size of a regular file, for progress ETAs; nullopt for pipes.
  std::optional<std::uint64_t> total_bytes() const;

 private:
  friend std::vector<ByteRange> split_key_file(const std::string&, KeyFormat, std::size_t);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrw
