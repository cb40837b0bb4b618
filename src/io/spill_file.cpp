#include "spill_file.hpp"

#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "hrw/errors.hpp"

namespace hrw::io {

namespace {

// A spill file that cannot be created or written is the environment's doing (a missing or
// read-only folder, a full disk), not a bug: an InputError naming the folder and the cause
// (docs/errors.md, "Temporary files").
[[noreturn]] void refuse(const std::string& dir, const char* what, int error) {
  throw InputError(fmt::format("temporary folder {}: {}: {}", quote_for_message(dir, 256), what,
                               std::strerror(error)));
}

}  // namespace

std::string default_temp_folder() {
  const char* env = std::getenv("TMPDIR");
  return env && *env ? env : "/tmp";
}

SpillFile::SpillFile(const std::string& dir) : dir_(dir) {
  std::string name = dir + "/.hrw-spill-XXXXXX";
  const int fd = ::mkstemp(name.data());
  if (fd < 0) refuse(dir, "cannot create a temporary file", errno);
  ::unlink(name.c_str());
  file_ = ::fdopen(fd, "w+b");
  if (!file_) {
    const int error = errno;
    ::close(fd);
    refuse(dir, "cannot open a temporary file", error);
  }
}

SpillFile::~SpillFile() {
  if (file_) std::fclose(file_);
}

void SpillFile::write(const void* data, std::size_t size) {
  if (size && std::fwrite(data, 1, size, file_) != size) refuse(dir_, "cannot write a temporary file", errno);
  written_ += size;
}

bool SpillFile::read(void* data, std::size_t size) {
  const std::size_t got = std::fread(data, 1, size, file_);
  if (got == size) return true;
  if (got == 0 && std::feof(file_)) return false;
  throw std::runtime_error("temporary file: short read");
}

void SpillFile::rewind() {
  // Buffered writes fail here when the disk is full.
  if (std::fflush(file_) != 0) refuse(dir_, "cannot write a temporary file", errno);
  if (std::fseek(file_, 0, SEEK_SET) != 0) throw std::runtime_error(fmt::format("temporary file: {}", std::strerror(errno)));
}

}  // namespace hrw::io
