// CSV output per RFC 4180: a field is quoted only when it must be (it holds a comma, a
// quote, CR or LF), so plain keys stay readable and any byte string round-trips.
#pragma once
#include <string>
#include <string_view>

namespace hrw::csv {

bool needs_quotes(std::string_view field);
// Appends `field` to `out`, quoted and with inner quotes doubled when needed.
void append_field(std::string& out, std::string_view field);
// The same field written at `out`, which has room for 2 * field.size() + 2 bytes (every
// byte a doubled quote, and the two quotes); returns the end of what was written. For
// writers that fill a buffer a row at a time (PlacementCsv::append_rows).
char* write_field(char* out, std::string_view field);
std::string quoted(std::string_view field);

}  // namespace hrw::csv
