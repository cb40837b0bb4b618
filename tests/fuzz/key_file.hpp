// The fuzz input as a file the key readers can open by path (an in-memory file).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "hrw/errors.hpp"
#include "hrw/key_source.hpp"

namespace hrw::fuzz {

inline std::string key_file(std::string_view bytes) {
  static const int fd = ::memfd_create("keys", 0);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  if (!bytes.empty() && ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))
    std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

// Up to three byte ranges that tile the file (hrw::ByteRange), cut where the input's hash
// says, with their quote counts as a caller computes them (count_quotes over the pieces).
inline std::vector<ByteRange> ranges_of(const std::string& path, std::string_view bytes) {
  std::uint64_t h = 1469598103934665603ull;
  for (const char c : bytes) h = (h ^ static_cast<unsigned char>(c)) * 1099511628211ull;
  const std::uint64_t n = bytes.size();
  std::uint64_t a = h % (n + 1), b = (h >> 24) % (n + 1);
  if (a > b) std::swap(a, b);
  std::vector<ByteRange> out;
  std::uint64_t quotes = 0, begin = 0;
  for (const std::uint64_t end : {a, b, n}) {
    const std::uint64_t in = count_quotes(path, begin, end);
    out.push_back({begin, end, quotes, quotes + in});
    quotes += in;
    begin = end;
  }
  return out;
}

// The file's first bytes say it is compressed (gzip, zstd, or a format hrw refuses): it is
// decoded and read whole, never in byte ranges, so a plain split is not its oracle
// (docs/errors.md, "Compressed files"; tests/cli/compressed.cpp tests those readers).
inline bool compressed(const std::string& path) {
  try {
    return file_compression(path) != nullptr;
  } catch (const InputError&) {
    return true;
  }
}

inline void check_message(const char* what) {
  const std::string_view message = what;
  if (message.find('\n') != std::string_view::npos || message.size() > 2000) std::abort();
}

}  // namespace hrw::fuzz
