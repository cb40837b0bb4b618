#include <fmt/format.h>

#include "hrw/csv.hpp"
#include "hrw/output.hpp"

namespace hrw {

MoveCsv::MoveCsv(const std::vector<std::string>& ids, bool with_bytes, bool with_requests)
    : with_bytes_(with_bytes), with_requests_(with_requests) {
  for (const std::string& id : ids) ids_.push_back(csv::quoted(id));
}

std::string MoveCsv::header() const {
  std::string h = "batch,key,from,to";
  if (with_bytes_) h += ",bytes";
  if (with_requests_) h += ",requests";
  return h + "\n";
}

namespace {

void append_number(std::string& out, std::uint64_t v) {
  char num[24];
  const auto end = fmt::format_to(num, "{}", v);
  out.append(num, end);
}

}  // namespace

void MoveCsv::append_row(std::string& out, std::uint64_t batch, std::string_view key,
                         std::uint32_t from, std::uint32_t to, std::uint64_t bytes,
                         std::uint64_t requests) const {
  append_number(out, batch);
  out.push_back(',');
  append_unbatched_row(out, key, from, to, bytes, requests);
}

void MoveCsv::append_unbatched_row(std::string& out, std::string_view key, std::uint32_t from,
                                   std::uint32_t to, std::uint64_t bytes, std::uint64_t requests) const {
  csv::append_field(out, key);
  out.push_back(',');
  out.append(ids_[from]);
  out.push_back(',');
  out.append(ids_[to]);
  if (with_bytes_) {
    out.push_back(',');
    append_number(out, bytes);
  }
  if (with_requests_) {
    out.push_back(',');
    append_number(out, requests);
  }
  out.push_back('\n');
}

}  // namespace hrw
