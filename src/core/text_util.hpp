// Small text helpers shared by the parsers in src/.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hrw {

// Splits on `sep`, keeping empty fields ("a,,b" -> a, "", b); "" gives one empty field.
std::vector<std::string_view> split(std::string_view text, char sep);
// The whole string as a double (strtod syntax: also "nan", "inf"); nullopt otherwise.
std::optional<double> parse_double(std::string_view text);
// Reads a file (or a FIFO with a writer; one without gives an error, not a wait);
// InputError "PATH: ..." when missing, unreadable, a folder or longer than max_bytes.
std::string read_whole_file(const std::string& path, std::size_t max_bytes);
// Whether the bytes are valid UTF-8 (what a JSON string can hold).
bool valid_utf8(std::string_view bytes);

}  // namespace hrw
