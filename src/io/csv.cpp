#include "hrw/csv.hpp"

#include <array>
#include <cstring>

namespace hrw::csv {

namespace {

// The bytes that make a field need quotes, as a table: one load per byte instead of four
// compares (row formatting is most of a place's CPU time).
constexpr std::array<bool, 256> kQuotable = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : {',', '"', '\r', '\n'}) t[c] = true;
  return t;
}();

char* write_quoted(char* out, std::string_view field) {
  *out++ = '"';
  for (char c : field) {
    if (c == '"') *out++ = '"';
    *out++ = c;
  }
  *out++ = '"';
  return out;
}

}  // namespace

bool needs_quotes(std::string_view field) {
  bool quote = false;
  for (char c : field) quote |= kQuotable[static_cast<unsigned char>(c)];
  return quote;
}

void append_field(std::string& out, std::string_view field) {
  if (!needs_quotes(field)) {
    out.append(field);
    return;
  }
  const std::size_t at = out.size();
  out.resize(at + 2 * field.size() + 2);
  out.resize(static_cast<std::size_t>(write_quoted(out.data() + at, field) - out.data()));
}

char* write_field(char* out, std::string_view field) {
  if (needs_quotes(field)) return write_quoted(out, field);
  if (!field.empty()) std::memcpy(out, field.data(), field.size());
  return out + field.size();
}

std::string quoted(std::string_view field) {
  std::string out;
  append_field(out, field);
  return out;
}

}  // namespace hrw::csv
