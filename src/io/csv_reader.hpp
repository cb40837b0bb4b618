// A streaming RFC 4180 record reader over a ByteReader. Fields live in reused strings, so
// reading a record allocates nothing once the first records have sized them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "byte_reader.hpp"

namespace hrw::io {

class CsvReader {
 public:
  explicit CsvReader(ByteReader& in) : in_(in) {}

  // Reads the next record; false at end of input. Throws InputError with the line where a
  // quoted field started when its quote is never closed, or where a closing quote is
  // followed by anything but a comma or the end of the record.
  bool next();

  std::size_t field_count() const { return count_; }
  const std::string& field(std::size_t i) const { return fields_[i]; }
  // Line (1-based) where the current record starts.
  std::uint64_t record_line() const { return record_line_; }
  // A file read in byte ranges (hrw::ByteRange): a quote inside an unquoted field is an
  // InputError naming its line, since the ranges' quote parity assumes there is none.
  void refuse_quotes_in_plain_fields() { quote_ends_plain_ = true; }
  // The line the next record starts on (a reader placed after a header read apart).
  void start_at_line(std::uint64_t line) { line_ = record_line_ = line; }
  std::uint64_t line() const { return line_; }

 private:
  std::string& new_field();
  bool read_quoted(std::string& f);  // true when the record ended after it
  bool read_plain(std::string& f);   // true when the record ended after it
  [[noreturn]] void record_too_long() const;

  ByteReader& in_;
  std::vector<std::string> fields_;
  std::size_t count_ = 0;
  std::uint64_t line_ = 1;
  std::uint64_t record_line_ = 1;
  bool quote_ends_plain_ = false;
};

// A bytes/requests cell as a count: digits only, fitting 64 bits. InputError
// "NAME: line L: COLUMN must be a non-negative integer, got "CELL"" otherwise. Shared by
// the keys reader and the placement reader, so both accept and word the same.
std::uint64_t parse_count(const std::string& cell, const char* column, const std::string& name,
                          std::uint64_t line);

}  // namespace hrw::io
