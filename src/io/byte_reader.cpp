#include "byte_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "hrw/errors.hpp"
#include "hrw/input_file.hpp"

namespace hrw::io {

namespace {
// Big enough that syscalls are rare (one per MiB), small enough to stay in L2 while it is
// scanned and to cost few first-touch page faults.
constexpr std::size_t kBufferBytes = std::size_t{1} << 20;
}  // namespace

ByteReader::ByteReader(const std::string& path)
    : name_(path == "-" ? "<stdin>" : path) {
  buf_.grow(kBufferBytes + kReadSlack, 0);
  if (path == "-") {
    fd_ = STDIN_FILENO;
  } else {
    OpenedInput in = open_input(path, name_);  // the one rule for FIFOs
    fd_ = in.fd;
    own_fd_ = true;
    if (in.regular) size_ = in.size;
    std::memcpy(buf_.data(), in.first.data(), in.first.size());  // at most 4 KiB
    end_ = in.first.size();
  }
  struct stat st {};
  if (path == "-" && ::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: cannot read: is a directory", name_));
    if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
}

ByteReader::~ByteReader() {
  if (own_fd_) ::close(fd_);
}

bool ByteReader::refill() {
  if (eof_) return false;
  const std::size_t unread = end_ - pos_;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, unread);
    pos_ = 0;
    end_ = unread;
  }
  if (end_ == limit()) buf_.grow(2 * limit() + kReadSlack, end_);  // a key longer than the buffer
  std::size_t want = limit() - end_;
  if (read_until_ != static_cast<std::uint64_t>(-1)) {
    // Within the range, read to its end; past it, 64 KiB at a time (the last record).
    const std::uint64_t next = consumed_ + (end_ - pos_);
    const std::uint64_t step = next < read_until_ ? read_until_ - next : std::uint64_t{1} << 16;
    want = static_cast<std::size_t>(std::min<std::uint64_t>(want, step));
  }
  for (;;) {
    const ssize_t n = ::read(fd_, buf_.data() + end_, want);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      return true;
    }
    if (n == 0) {
      eof_ = true;
      return false;
    }
    if (errno == EINTR) continue;
    throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
  }
}

void ByteReader::seek(std::uint64_t offset, std::uint64_t read_until) {
  if (!size_) throw InputError(fmt::format("{}: byte ranges need a regular file", name_));
  if (::lseek(fd_, static_cast<off_t>(offset), SEEK_SET) < 0)
    throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
  pos_ = end_ = 0;
  consumed_ = offset;
  eof_ = false;
  read_until_ = std::max(read_until, offset + 1);
}

}  // namespace hrw::io
