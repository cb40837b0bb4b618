#include "json_errors.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw {

namespace {

// "line L, column C" of a byte offset, for JSON parse errors.
std::string position_of(std::string_view text, std::size_t offset) {
  offset = std::min(offset, text.size());
  std::size_t line = 1, column = 1;
  for (std::size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
  }
  return fmt::format("line {}, column {}", line, column);
}

// The reason from nlohmann's parse error, without its codes and positions (the caller gives
// line and column) or the raw bytes it last read: "[json.exception.parse_error.101] parse
// error at line 1, column 5: syntax error while parsing value - invalid literal; last read:
// 'x'" -> "invalid literal".
std::string parse_error_text(std::string what) {
  if (auto pos = what.find(" - "); pos != std::string::npos) what.erase(0, pos + 3);
  else if (auto colon = what.find(": "); colon != std::string::npos) what.erase(0, colon + 2);
  if (auto pos = what.find("; last read"); pos != std::string::npos) {
    const auto next = what.find("; ", pos + 2);
    what.erase(pos, next == std::string::npos ? std::string::npos : next - pos);
  }
  return what;
}

}  // namespace

// nlohmann's messages quote the offending token raw: a newline or a 0xff byte in it would
// break the one-line rule, so they are escaped like input bytes.
std::string printable(const std::string& message) {
  std::string q = quote_for_message(message, 200);
  q.erase(q.rfind('"'), 1);  // the quotes around it: it is a message, not a value
  q.erase(0, 1);
  return q;
}

std::string json_parse_error(std::string_view text, const nlohmann::json::parse_error& e) {
  // nlohmann's byte is 1-based and points just past the offending character.
  const std::size_t offset = e.byte ? e.byte - 1 : 0;
  return fmt::format("{}: malformed JSON: {}", position_of(text, offset), printable(parse_error_text(e.what())));
}

}  // namespace hrw
