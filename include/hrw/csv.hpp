// CSV output per RFC 4180: a field is quoted only when it must be (it holds a comma, a
// quote, CR or LF), so plain keys stay readable and any byte string round-trips.
#pragma once
#include <string>
#include <string_view>

namespace hrw::csv {

bool needs_quotes(std::string_view field);
// Appends `field` to `out`, quoted and with inner quotes doubled when needed.
void append_field(std::string& out, std::string_view field);
std::string quoted(std::string_view field);

}  // namespace hrw::csv
