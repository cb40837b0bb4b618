#include "plan_rows_reader.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "byte_reader.hpp"
#include "csv_reader.hpp"
#include "hrw/errors.hpp"

namespace hrw::io {

namespace {

std::uint64_t batch_of(const std::string& cell, const std::string& path, std::uint64_t line) {
  std::uint64_t batch = 0;
  auto [ptr, ec] = std::from_chars(cell.data(), cell.data() + cell.size(), batch);
  if (ec != std::errc() || ptr != cell.data() + cell.size() || cell.empty() || batch == 0)
    throw InputError(fmt::format("{}: line {}: batch must be an integer from 1, got {}", path, line,
                                 quote_for_message(cell)));
  return batch;
}

// Reads `path`, whose header starts with `head`, calling row(csv, line) per record.
template <typename Row>
void read_rows(const std::string& path, std::initializer_list<const char*> head, const char* what,
               std::size_t min_fields, std::size_t max_fields, Row row) {
  ByteReader in(path);
  CsvReader csv(in);
  bool header = csv.next() && csv.field_count() >= min_fields && csv.field_count() <= max_fields;
  std::size_t c = 0;
  for (const char* name : head) header = header && csv.field(c++) == name;
  if (!header) throw InputError(fmt::format("{}: line 1: not a {}", path, what));
  const std::size_t fields = csv.field_count();
  while (csv.next()) {
    const std::uint64_t line = csv.record_line();
    if (csv.field_count() != fields)
      throw InputError(fmt::format("{}: line {}: {} fields, the header has {}", path, line, csv.field_count(), fields));
    row(csv, line);
  }
}

}  // namespace

PlanChanges read_transitions(const std::string& path) {
  PlanChanges changes;
  read_rows(path, {"batch", "key", "action", "node", "source"},
            "transitions file (header batch,key,action,node,source)", 5, 5, [&](const CsvReader& csv, std::uint64_t line) {
              const std::string& action = csv.field(2);
              if (action != "copy" && action != "switch" && action != "retire")
                throw InputError(fmt::format("{}: line {}: action must be copy, switch or retire, got {}", path, line,
                                             quote_for_message(action)));
              KeyChange& change = changes[csv.field(1)];
              change.round = std::max(change.round, batch_of(csv.field(0), path, line));
              if (action == "copy") change.gained.push_back(csv.field(3)), change.sources.push_back(csv.field(4));
              if (action == "retire") change.lost.push_back(csv.field(3));
            });
  return changes;
}

PlanChanges read_moves(const std::string& path) {
  PlanChanges changes;
  read_rows(path, {"batch", "key", "from", "to"}, "plan's moves file (header batch,key,from,to[,bytes][,requests])", 4, 6,
            [&](const CsvReader& csv, std::uint64_t line) {
              KeyChange& change = changes[csv.field(1)];
              change.round = std::max(change.round, batch_of(csv.field(0), path, line));
              change.sources.push_back(csv.field(2));
              change.gained.push_back(csv.field(3));
            });
  return changes;
}

}  // namespace hrw::io
