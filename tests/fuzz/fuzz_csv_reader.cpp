// The CSV key reader: any bytes give keys or one InputError line. What it accepts, written
// back with the CSV writer and read again, gives the same keys, bytes and requests. Read in
// byte ranges (hrw::ByteRange) it gives the same rows or the same error, or refuses a quote
// inside an unquoted field (which only ranges refuse).
#include <cstdlib>
#include <string>
#include <vector>

#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"
#include "key_file.hpp"

namespace {

struct Rows {
  std::vector<std::string> keys;
  std::vector<std::uint64_t> bytes, requests;
  bool has_bytes = false, has_requests = false;
  bool operator==(const Rows&) const = default;
};

void drain(hrw::KeySource& source, std::size_t chunk, Rows& rows) {
  rows.has_bytes = source.has_bytes();
  rows.has_requests = source.has_requests();
  for (hrw::KeyChunk c; source.next(c, chunk);) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      rows.keys.emplace_back(c.keys[i]);
      if (rows.has_bytes) rows.bytes.push_back(c.bytes.at(i));
      if (rows.has_requests) rows.requests.push_back(c.requests.at(i));
    }
  }
}

Rows read_all(std::string_view text, std::size_t chunk) {
  Rows rows;
  hrw::KeySource source(hrw::fuzz::key_file(text), hrw::KeyFormat::csv);
  drain(source, chunk, rows);
  return rows;
}

// The rows in byte ranges, or the error's message.
std::string read_ranges(std::string_view text, std::size_t chunk, Rows& rows) {
  const std::string path = hrw::fuzz::key_file(text);
  try {
    for (const hrw::ByteRange& range : hrw::fuzz::ranges_of(path, text)) {
      hrw::KeySource source(path, hrw::KeyFormat::csv, range);
      drain(source, chunk, rows);
    }
  } catch (const hrw::InputError& e) {
    return e.what();
  }
  return "";
}

bool refused_in_ranges_only(const std::string& message) {
  return message.find("a quote inside an unquoted field") != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  // Compressed bytes are decoded and read whole (no byte ranges): rows or one error line.
  const bool whole_only = hrw::fuzz::compressed(hrw::fuzz::key_file(text));
  Rows rows, ranged;
  try {
    rows = read_all(text, chunk);
  } catch (const hrw::InputError& e) {
    hrw::fuzz::check_message(e.what());
    if (whole_only) return 0;
    const std::string in_ranges = read_ranges(text, chunk, ranged);
    // A total past 2^64 - 1 may need several ranges: their merge refuses it (checked sums).
    const bool total = std::string_view(e.what()).find("exceeds 2^64 - 1") != std::string_view::npos;
    if (in_ranges != e.what() && !refused_in_ranges_only(in_ranges) && !(total && in_ranges.empty())) std::abort();
    return 0;
  }
  if (!whole_only) {
    const std::string in_ranges = read_ranges(text, chunk, ranged);
    if (in_ranges.empty() ? !(ranged == rows) : !refused_in_ranges_only(in_ranges)) std::abort();
  }
  std::string again = "key";
  if (rows.has_bytes) again += ",bytes";
  if (rows.has_requests) again += ",requests";
  again += "\n";
  for (std::size_t i = 0; i < rows.keys.size(); ++i) {
    again += hrw::csv::quoted(rows.keys[i]);
    if (rows.has_bytes) again += "," + std::to_string(rows.bytes[i]);
    if (rows.has_requests) again += "," + std::to_string(rows.requests[i]);
    again += "\n";
  }
  if (!(read_all(again, 64) == rows)) std::abort();
  return 0;
}
