// Helpers for the bulk I/O and plan tests: test scale, random tricky keys, CSV parsing of
// outputs (through the library's own reader).
#pragma once
#include <cstdint>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "byte_reader.hpp"
#include "test_scale.hpp"
#include "csv_reader.hpp"

namespace hrw::test {


// Keys that stress every format rule: commas, quotes, CR, LF, empty, non-UTF-8 bytes.
inline std::vector<std::string> tricky_keys(std::size_t n, std::uint64_t seed, bool allow_newlines) {
  static const std::string kSpecial[] = {"", ",", "\"", "a,b", "say \"hi\"", "\r", "x\r",
                                         "\xff\xfe", "\x80", "caf\xc3\xa9", " space "};
  std::mt19937_64 rng(seed);
  std::vector<std::string> keys;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 4 == 0) {
      keys.push_back(kSpecial[rng() % std::size(kSpecial)]);
      continue;
    }
    std::string k;
    const std::size_t len = rng() % 12;
    for (std::size_t j = 0; j < len; ++j) {
      char c = static_cast<char>(rng() % 256);
      if (!allow_newlines && (c == '\n' || c == '\r')) c = 'n';
      k.push_back(c);
    }
    keys.push_back(k);
  }
  return keys;
}

// Every record of a CSV file, header included.
inline std::vector<std::vector<std::string>> parse_csv_file(const std::string& path) {
  io::ByteReader in(path);
  io::CsvReader csv(in);
  std::vector<std::vector<std::string>> rows;
  while (csv.next()) {
    std::vector<std::string> row;
    for (std::size_t i = 0; i < csv.field_count(); ++i) row.push_back(csv.field(i));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace hrw::test
