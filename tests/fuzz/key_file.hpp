// The fuzz input as a file the key readers can open by path (an in-memory file).
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

namespace hrw::fuzz {

inline std::string key_file(std::string_view bytes) {
  static const int fd = ::memfd_create("keys", 0);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  if (!bytes.empty() && ::pwrite(fd, bytes.data(), bytes.size(), 0) != static_cast<ssize_t>(bytes.size()))
    std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

inline void check_message(const char* what) {
  const std::string_view message = what;
  if (message.find('\n') != std::string_view::npos || message.size() > 2000) std::abort();
}

}  // namespace hrw::fuzz
