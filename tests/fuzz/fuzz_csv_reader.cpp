// The CSV key reader: any bytes give keys or one InputError line. What it accepts, written
// back with the CSV writer and read again, gives the same keys, bytes and requests.
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

Rows read_all(std::string_view text, std::size_t chunk) {
  Rows rows;
  hrw::KeySource source(hrw::fuzz::key_file(text), hrw::KeyFormat::csv);
  rows.has_bytes = source.has_bytes();
  rows.has_requests = source.has_requests();
  for (hrw::KeyChunk c; source.next(c, chunk);) {
    for (std::size_t i = 0; i < c.size(); ++i) {
      rows.keys.emplace_back(c.keys[i]);
      if (rows.has_bytes) rows.bytes.push_back(c.bytes.at(i));
      if (rows.has_requests) rows.requests.push_back(c.requests.at(i));
    }
  }
  return rows;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::size_t chunk = 1 + data[0] % 64;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  Rows rows;
  try {
    rows = read_all(text, chunk);
  } catch (const hrw::InputError& e) {
    hrw::fuzz::check_message(e.what());
    return 0;
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
