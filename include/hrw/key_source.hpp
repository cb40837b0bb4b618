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
struct KeyInput;  // hrw/bulk.hpp
namespace io {
class KeyRanges;  // the bulk pipeline's parallel reader (private to the library)
}

// "lines" or "csv"; InputError otherwise.
KeyFormat parse_key_format(std::string_view text);
// csv for a name ending in ".csv", lines otherwise (stdin included); InputError for
// ".json", ".jsonl" and ".ndjson" (there is no JSON keys format: see the source). A last
// ".gz" or ".zst" is not part of the format's name (keys.csv.gz is CSV).
KeyFormat key_format_for(std::string_view path);

// Large enough that per-chunk costs (pipeline hand-off, counter folding) vanish, small
// enough that the two chunks per thread in flight stay in cache and cost few first-touch
// page faults. Measured on 10^7-key plans: 4096 to 16384 keys per chunk are equally
// fast, 65536 was ~15% slower.
inline constexpr std::size_t kDefaultChunkKeys = std::size_t{1} << 13;

// The longest key (lines) or CSV record accepted: an input without line ends (`cat
// /dev/zero`) is refused naming its line instead of filling the memory.
inline constexpr std::size_t kMaxKeyBytes = std::size_t{64} << 20;

struct KeyChunk {
  KeyBatch keys;
  std::vector<std::uint64_t> bytes;     // one per key when the input has a bytes column
  std::vector<std::uint64_t> requests;  // one per key when the input has a requests column
  std::uint64_t first = 0;              // input index of keys[0]
  std::uint64_t input_offset = 0;       // the file's bytes (compressed ones if so) read once this chunk was read

  std::size_t size() const { return keys.size(); }
  void clear();
  std::uint64_t bytes_of(std::size_t i) const { return bytes.empty() ? 0 : bytes[i]; }
  std::uint64_t requests_of(std::size_t i) const { return requests.empty() ? 0 : requests[i]; }
};

// One part of a regular file read apart from the others, so that parts can be read on
// several workers (hrw.dask over files, docs/python.md): the part holds the records that
// start in [begin, end). Parts that tile a file hold its records exactly once, in order.
// A CSV file's header is read from its start by every part (it is never a record of one).
//
// A record starts after an LF that is outside a quoted field (CSV) or after any LF
// (lines). For CSV, whether a boundary falls inside a quoted field is decided by the
// parity of the quotes before it (count_quotes): every quote of a well-formed field opens,
// closes or doubles inside a quoted field, so an even count before a byte means the byte
// is outside quotes. A quote inside an unquoted field (`ab"c`, which a whole-file read
// accepts) breaks that rule, so a file read in more than one part refuses it, naming its
// line: such a file must be read whole.
struct ByteRange {
  std::uint64_t begin = 0, end = 0;  // end past the file's size: its size
  // CSV only: the quotes ('"' bytes) in [0, begin) and in [0, end), or any counts with
  // their parities.
  std::uint64_t quotes_before_begin = 0, quotes_before_end = 0;
};

// The '"' bytes of [begin, end) of a regular file (prefix sums of these give the
// ByteRange quote counts). InputError naming the file when it cannot be read.
std::uint64_t count_quotes(const std::string& path, std::uint64_t begin, std::uint64_t end);

// "gzip" or "zstd" when a file's first bytes say it is compressed (it is then read whole:
// it has no byte ranges), nullptr when they do not. InputError for a compression hrw does
// not decode, and as KeySource for a file it cannot open.
const char* file_compression(const std::string& path);

class KeySource {
 public:
  // "-" reads stdin. Throws InputError naming the file when it is missing, a directory or
  // unreadable, and (csv) when the header has no key column or a column other than key,
  // bytes and requests that is not among `ignored_columns` (docs/errors.md, "CSV columns").
  KeySource(const std::string& path, KeyFormat format, const std::vector<std::string>& ignored_columns = {});
  // One part of a regular file (ByteRange). Errors name the file and the line in the whole
  // file, as a whole-file read words them. Keys are numbered from 0 within the part
  // (KeyChunk::first, keys_read) and input_offset counts from the part's first record.
  KeySource(const std::string& path, KeyFormat format, const ByteRange& range,
            const std::vector<std::string>& ignored_columns = {});
  // The input a bulk command was given: its path, format, range and ignored columns (hrw/bulk.hpp).
  explicit KeySource(const KeyInput& input);
  ~KeySource();
  KeySource(const KeySource&) = delete;
  KeySource& operator=(const KeySource&) = delete;

  // Replaces `chunk` with the next keys, at most max_keys (>= 1). False when none are left.
  // Malformed input throws InputError "FILE: line N: ...".
  bool next(KeyChunk& chunk, std::size_t max_keys);

  bool has_bytes() const;
  bool has_requests() const;
  const std::string& name() const;  // the path, or "<stdin>"
  std::uint64_t keys_read() const;
  // Size of a regular file, for progress ETAs; nullopt for pipes.
  std::optional<std::uint64_t> total_bytes() const;

 private:
  friend class io::KeyRanges;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hrw
