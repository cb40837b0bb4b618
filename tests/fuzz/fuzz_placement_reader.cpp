// The placement reader (hrw plan --from-placement, hrw check): any bytes give holders or one
// InputError line. What it accepts, written back as key,replica_1..R CSV and read again,
// gives the same keys, holders (by id), bytes and requests.
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "hrw/csv.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement_reader.hpp"
#include "key_file.hpp"

namespace {

struct Rows {
  std::uint32_t replicas = 0;
  std::vector<std::string> keys;
  std::vector<std::string> holders;  // replicas per key; "" for an empty cell
  std::vector<std::uint64_t> bytes, requests;
  bool has_bytes = false, has_requests = false;
  bool operator==(const Rows&) const = default;
};

Rows read_all(std::string_view text, std::size_t chunk) {
  Rows rows;
  hrw::io::PlacementReader reader(hrw::fuzz::key_file(text), std::nullopt);
  rows.replicas = reader.replicas();
  rows.has_bytes = reader.has_bytes();
  rows.has_requests = reader.has_requests();
  hrw::KeyChunk c;
  std::vector<std::uint32_t> holders;
  std::vector<std::uint64_t> lines;
  while (reader.next(c, holders, lines, chunk)) {
    if (holders.size() != c.size() * rows.replicas || lines.size() != c.size()) std::abort();
    for (std::size_t i = 0; i < c.size(); ++i) {
      rows.keys.emplace_back(c.keys[i]);
      for (std::uint32_t r = 0; r < rows.replicas; ++r) {
        const std::uint32_t h = holders[i * rows.replicas + r];
        rows.holders.push_back(h == hrw::io::PlacementReader::kNoHolder ? "" : reader.ids().at(h));
      }
      if (rows.has_bytes) rows.bytes.push_back(c.bytes.at(i));
      if (rows.has_requests) rows.requests.push_back(c.requests.at(i));
    }
  }
  return rows;
}

std::string write_back(const Rows& rows) {
  std::string out = "key";
  for (std::uint32_t r = 1; r <= rows.replicas; ++r) out += ",replica_" + std::to_string(r);
  if (rows.has_bytes) out += ",bytes";
  if (rows.has_requests) out += ",requests";
  out += "\n";
  for (std::size_t i = 0; i < rows.keys.size(); ++i) {
    out += hrw::csv::quoted(rows.keys[i]);
    for (std::uint32_t r = 0; r < rows.replicas; ++r)
      out += "," + hrw::csv::quoted(rows.holders[i * rows.replicas + r]);
    if (rows.has_bytes) out += "," + std::to_string(rows.bytes[i]);
    if (rows.has_requests) out += "," + std::to_string(rows.requests[i]);
    out += "\n";
  }
  return out;
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
  Rows again;
  try {
    again = read_all(write_back(rows), 64);
  } catch (const hrw::InputError&) {
    std::abort();  // what it accepted, written back plainly, must read again
  }
  if (!(again == rows)) std::abort();
  return 0;
}
