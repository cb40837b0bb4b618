#include "spill_file.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace hrw::io {

SpillFile::SpillFile(const std::string& dir) {
  std::string name = dir + "/.hrw-spill-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0)
    throw std::runtime_error(fmt::format("{}: cannot create a temporary file: {}", dir, std::strerror(errno)));
  ::unlink(name.c_str());
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    ::close(fd);
    throw std::runtime_error(fmt::format("{}: cannot open a temporary file", dir));
  }
}

SpillFile::~SpillFile() {
  if (file_) std::fclose(file_);
}

void SpillFile::write(const void* data, std::size_t size) {
  if (size && std::fwrite(data, 1, size, file_) != size)
    throw std::runtime_error(fmt::format("temporary file: write failed: {}", std::strerror(errno)));
  written_ += size;
}

bool SpillFile::read(void* data, std::size_t size) {
  const std::size_t got = std::fread(data, 1, size, file_);
  if (got == size) return true;
  if (got == 0 && std::feof(file_)) return false;
  throw std::runtime_error("temporary file: short read");
}

void SpillFile::rewind() {
  if (std::fflush(file_) != 0 || std::fseek(file_, 0, SEEK_SET) != 0)
    throw std::runtime_error(fmt::format("temporary file: {}", std::strerror(errno)));
}

}  // namespace hrw::io
