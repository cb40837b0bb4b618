// Where the compared keys come from: generated, or one per line from a file or stdin.
#include <filesystem>
#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "hrw/compare.hpp"
#include "hrw/errors.hpp"

namespace hrw::compare {

KeyBatch sample_keys(std::size_t n) {
  KeyBatch keys;
  keys.reserve(n, n * 10);
  std::string key;
  for (std::size_t i = 0; i < n; ++i) {
    key = "key-";
    key += std::to_string(i);
    keys.add(key);
  }
  return keys;
}

namespace {
KeyBatch read_lines(std::istream& in) {
  KeyBatch keys;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    keys.add(line);
  }
  return keys;
}
}  // namespace

KeyBatch read_key_lines(const std::string& path) {
  if (path == "-") {
    KeyBatch keys = read_lines(std::cin);
    if (std::cin.bad()) throw InputError("-: cannot read keys from stdin");
    return keys;
  }
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a key file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot open the key file", path));
  KeyBatch keys = read_lines(in);
  if (in.bad()) throw InputError(fmt::format("{}: read error", path));
  return keys;
}

}  // namespace hrw::compare
