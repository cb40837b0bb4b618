#include "hrw/csv.hpp"

#include <cstring>

namespace hrw::csv {

bool needs_quotes(std::string_view field) {
  for (char c : field)
    if (c == ',' || c == '"' || c == '\r' || c == '\n') return true;
  return false;
}

void append_field(std::string& out, std::string_view field) {
  if (!needs_quotes(field)) {
    out.append(field);
    return;
  }
  out.push_back('"');
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

std::string quoted(std::string_view field) {
  std::string out;
  append_field(out, field);
  return out;
}

}  // namespace hrw::csv
