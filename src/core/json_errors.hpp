// How a JSON parse error is worded (docs/errors.md, "Messages"): where, and the parser's
// reason without its codes or the raw bytes it last read, on one printable line. Private
// to the library: cluster files and saved bench runs both use it.
#pragma once
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace hrw {

// A parser's message with its raw bytes escaped as input bytes are (quote_for_message),
// without the quotes: one printable line.
std::string printable(const std::string& message);

// "line L, column C: malformed JSON: REASON" for an error of parsing `text`.
std::string json_parse_error(std::string_view text, const nlohmann::json::parse_error& e);

}  // namespace hrw
