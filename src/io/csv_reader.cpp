#include "csv_reader.hpp"

#include <charconv>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"

namespace hrw::io {

std::string& CsvReader::new_field() {
  if (count_ == fields_.size()) fields_.emplace_back();
  std::string& f = fields_[count_++];
  f.clear();
  return f;
}

bool CsvReader::next() {
  count_ = 0;
  record_line_ = line_;
  if (in_.peek() < 0) return false;
  const std::uint64_t start = in_.consumed();
  for (;;) {
    if (in_.consumed() - start > kMaxKeyBytes) record_too_long();
    std::string& f = new_field();
    const bool ended = in_.peek() == '"' ? read_quoted(f) : read_plain(f);
    if (ended) return true;
  }
}

// A plain field runs to a comma or the end of the record (LF, CRLF or end of input).
bool CsvReader::read_plain(std::string& f) {
  for (;;) {
    const char* p = in_.cur();
    const char* e = in_.end();
    const char* q = p;
    while (q != e && *q != ',' && *q != '\n' && !(*q == '"' && quote_ends_plain_)) ++q;
    f.append(p, q);
    in_.consume(static_cast<std::size_t>(q - p));
    if (f.size() > kMaxKeyBytes) record_too_long();
    if (q != e && *q == '"')
      throw InputError(fmt::format(
          "{}: line {}: a quote inside an unquoted field: a CSV file read in byte ranges needs every "
          "quote to open, close or double inside a quoted field (read this file whole)",
          in_.name(), line_));
    if (q == e) {
      if (in_.refill()) continue;
      if (!f.empty() && f.back() == '\r') f.pop_back();
      return true;
    }
    in_.skip();
    if (*q == ',') return false;
    ++line_;
    if (!f.empty() && f.back() == '\r') f.pop_back();  // CRLF
    return true;
  }
}

bool CsvReader::read_quoted(std::string& f) {
  const std::uint64_t start_line = line_;
  in_.skip();  // the opening quote
  for (;;) {
    const int c = in_.peek();
    if (c < 0)
      throw InputError(fmt::format("{}: line {}: quoted field is never closed (quote opened here)",
                                   in_.name(), start_line));
    in_.skip();
    if (c == '"') {
      if (in_.peek() != '"') break;  // closing quote
      in_.skip();                    // "" is one quote
    } else if (c == '\n') {
      ++line_;
    }
    f.push_back(static_cast<char>(c));
    if (f.size() > kMaxKeyBytes) record_too_long();
  }
  int c = in_.peek();
  if (c == '\r') {
    in_.skip();
    c = in_.peek();
    if (c != '\n' && c >= 0)
      throw InputError(fmt::format("{}: line {}: unexpected character after a closing quote",
                                   in_.name(), line_));
  }
  if (c < 0) return true;
  if (c == ',' || c == '\n') {
    in_.skip();
    if (c == ',') return false;
    ++line_;
    return true;
  }
  throw InputError(fmt::format(
      "{}: line {}: unexpected character {} after a closing quote (expected , or end of line)",
      in_.name(), line_, quote_for_message(std::string(1, static_cast<char>(c)))));
}

void CsvReader::record_too_long() const {
  throw InputError(fmt::format("{}: line {}: a record longer than the {} MiB limit", in_.name(),
                               record_line_, kMaxKeyBytes >> 20));
}

std::uint64_t parse_count(const std::string& cell, const char* column, const std::string& name,
                          std::uint64_t line) {
  std::uint64_t value = 0;
  const char* end = cell.data() + cell.size();
  auto [ptr, ec] = std::from_chars(cell.data(), end, value);
  if (cell.empty() || ec != std::errc() || ptr != end)
    throw InputError(fmt::format("{}: line {}: {} must be a non-negative integer, got {}", name,
                                 line, column, quote_for_message(cell)));
  return value;
}

}  // namespace hrw::io
