#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "byte_reader.hpp"
#include "csv_reader.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement_reader.hpp"

namespace hrw::io {

std::unordered_map<std::string, std::uint64_t> read_transition_rounds(const std::string& path) {
  ByteReader in(path);
  CsvReader csv(in);
  static const char* const kHeader[] = {"batch", "key", "action", "node", "source"};
  bool header = csv.next() && csv.field_count() == 5;
  for (std::size_t c = 0; header && c < 5; ++c) header = csv.field(c) == kHeader[c];
  if (!header)
    throw InputError(fmt::format("{}: line 1: not a transitions file (header batch,key,action,node,source)", path));
  std::unordered_map<std::string, std::uint64_t> rounds;
  while (csv.next()) {
    const std::uint64_t line = csv.record_line();
    if (csv.field_count() != 5)
      throw InputError(fmt::format("{}: line {}: {} fields, the header has 5", path, line, csv.field_count()));
    const std::string& action = csv.field(2);
    if (action != "copy" && action != "switch" && action != "retire")
      throw InputError(fmt::format("{}: line {}: action must be copy, switch or retire, got {}", path, line,
                                   quote_for_message(action)));
    const std::string& cell = csv.field(0);
    std::uint64_t batch = 0;
    auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), batch);
    if (ec != std::errc() || ptr != cell.data() + cell.size() || cell.empty() || batch == 0)
      throw InputError(fmt::format("{}: line {}: batch must be an integer from 1, got {}", path, line,
                                   quote_for_message(cell)));
    std::uint64_t& round = rounds[csv.field(1)];
    round = std::max(round, batch);
  }
  return rounds;
}

}  // namespace hrw::io
