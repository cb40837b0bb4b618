// A whole regular keys file read in byte ranges on many threads, for the bulk pipeline
// (src/jobs/bulk/stream.cpp), with exactly the keys, order, sums and first error of a
// whole-file read. Private to the library.
//
// The file after its header is cut every range_bytes bytes; range k holds the records
// that start in [s_k, s_k+1), s_k the first record start at or after cut k as
// ByteRange's rule finds it (after an LF; CSV: outside quotes by the parity of the quotes
// counted from the first record). Each range is parsed as a whole-file read parses.
// Why that is exact: s_0 is a true record start. If s_k is one, the parse of range k is
// the whole-file parse of those bytes; s_k+1 follows an LF, so in the whole-file parse it
// is either a record start or inside a quoted field, and in the second case range k ends
// inside a quoted field, which is an error. So while no range fails, every s_k is a true
// record start and the ranges' records are the file's. A quote inside an unquoted field
// (`ab"c`, which a whole-file read accepts) can make the parity lie; then a range fails
// or a cut is skipped, never a record misread. On the first range that fails, the
// whole-file reader goes on from its s_k (resume), so the records and the first error
// are those of a one-thread read.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "hrw/key_source.hpp"

namespace hrw::io {

// What reading one range leaves for the in-order step.
struct RangeRead {
  bool failed = false;  // an InputError: the whole-file reader reads on from this range
  std::uint64_t bytes_sum = 0, requests_sum = 0;
};

class KeyRanges {
 public:
  // Ranges of about range_bytes over `source`, read by `readers` readers (one per thread
  // of the task arena), or nullptr when `source` is not a whole regular file that nothing has
  // been read from (stdin, pipes, FIFOs and parts of files are read serially). CSV: the
  // quotes of every range are counted first, in parallel in the current task arena.
  static std::unique_ptr<KeyRanges> open(KeySource& source, std::uint64_t range_bytes, std::size_t readers);
  ~KeyRanges();
  KeyRanges(const KeyRanges&) = delete;
  KeyRanges& operator=(const KeyRanges&) = delete;

  std::size_t count() const { return cuts_.size() - 1; }

  // Range k's records into `chunk` with reader `reader` (each reader used by one thread at
  // a time): keys numbered from 0, input_offset the end of the range's records in the
  // file. Any InputError returns failed.
  RangeRead read(std::size_t reader, std::size_t k, KeyChunk& chunk) const;

  // In input order, range after range: numbers the range's keys (chunk.first) and adds
  // its sums to the running totals. False when a sum overflows (nothing is added).
  bool take(const RangeRead& range, KeyChunk& chunk);

  // After ranges [0, k) were taken: `source` goes on from range k's first record with the
  // keys, sums and line numbers a whole-file read has there (k == count(): at its end).
  void resume(std::size_t k);

 private:
  KeyRanges(KeySource& source, std::uint64_t range_bytes, std::size_t readers);
  std::uint64_t first_record() const;

  class Reader;
  KeySource& source_;
  std::uint64_t size_;
  std::vector<std::uint64_t> cuts_;    // count() + 1 nominal cut points, from the first record
  std::vector<std::uint64_t> quotes_;  // CSV: quotes in [first record, cuts_[k])
  std::vector<std::unique_ptr<Reader>> readers_;
  std::uint64_t keys_ = 0, bytes_sum_ = 0, requests_sum_ = 0;
};

}  // namespace hrw::io
