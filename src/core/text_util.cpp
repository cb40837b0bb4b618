#include "text_util.hpp"

#include <cerrno>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw {

std::vector<std::string_view> split(std::string_view text, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  for (;;) {
    std::size_t end = text.find(sep, start);
    if (end == std::string_view::npos) {
      out.push_back(text.substr(start));
      return out;
    }
    out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
}

std::optional<double> parse_double(std::string_view text) {
  std::string copy(text);  // strtod needs a terminator
  if (copy.empty() || std::isspace(static_cast<unsigned char>(copy[0]))) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(copy.c_str(), &end);
  if (end != copy.c_str() + copy.size()) return std::nullopt;
  return value;
}

std::string read_whole_file(const std::string& path) {
  if (std::filesystem::is_directory(path))
    throw InputError(fmt::format("{}: cannot read: is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw InputError(fmt::format("{}: cannot read: {}", path, std::strerror(errno)));
  return buffer.str();
}

}  // namespace hrw
