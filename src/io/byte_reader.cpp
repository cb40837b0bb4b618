#include "byte_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <stdexcept>

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
    positioned_ = in.regular;
    // At most 4 KiB, held back until the first refill() has looked at them (first_fill).
    std::memcpy(buf_.data(), in.first.data(), in.first.size());
    filled_ = in.first.size();
  }
  struct stat st {};
  if (path == "-" && ::fstat(fd_, &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw InputError(fmt::format("{}: cannot read: is a directory", name_));
    if (S_ISREG(st.st_mode)) size_ = static_cast<std::uint64_t>(st.st_size);
  }
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  // Compressed or not, by the first bytes, never the name (docs/errors.md, "Compressed
  // files"): a regular file's at once (whether it has byte ranges depends on it); a
  // stream's at its first read, so that opening stdin or a pipe does not wait for data.
  if (!positioned_) return;
  try {
    char head[kMagicBytes];
    const Compression c = sniff_compression({head, read_at(0, head, sizeof head)}, name_);
    sniffed_ = true;
    if (c != Compression::kNone) start_decoding(c);
  } catch (...) {
    if (own_fd_) ::close(fd_);
    throw;
  }
}

bool ByteReader::first_fill() {
  sniffed_ = true;
  end_ = filled_;  // a FIFO's bytes read while waiting for its writer
  while (end_ < kMagicBytes && refill()) {
  }
  if (const Compression c = sniff_compression({buf_.data(), end_}, name_); c != Compression::kNone) {
    start_decoding(c);
    return decode_more();
  }
  return end_ > 0;
}

void ByteReader::start_decoding(Compression c) {
  // The bytes read so far are the first compressed ones; a regular file goes on after them.
  ahead_ = std::make_unique<DecodeAhead>(fd_, positioned_, base_ + end_, std::string(buf_.data(), end_), c, name_);
  compression_ = c;
  positioned_ = false;
  file_size_ = size_;
  size_.reset();
  pos_ = end_ = filled_ = 0;
  eof_ = false;
}

bool ByteReader::decode_more() {
  const std::size_t n = ahead_->read(buf_.data() + end_, limit() - end_);
  if (n == 0) {
    eof_ = true;
    return false;
  }
  end_ += n;
  filled_ = end_;
  return true;
}

ByteReader::ByteReader(const std::string& path, std::uint64_t begin, std::uint64_t end) : name_(path) {
  // Checked before opening: a FIFO would be waited for, and only a regular file has ranges.
  const std::string not_regular = fmt::format("{}: cannot read in byte ranges: not a regular file", name_);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) throw InputError(not_regular);
  OpenedInput in = open_input(path, name_);
  auto fail = [&](const std::string& message) {
    ::close(in.fd);
    throw InputError(message);
  };
  if (!in.regular) fail(not_regular);  // replaced by another kind of file since the stat
  // A compressed file's bytes are not its text's: it has no byte ranges.
  char head[kMagicBytes];
  fd_ = in.fd;
  Compression compression = Compression::kNone;
  try {
    compression = sniff_compression({head, read_at(0, head, sizeof head)}, name_);
  } catch (const InputError& e) {
    fail(e.what());
  }
  if (compression != Compression::kNone)
    fail(fmt::format("{}: {}-compressed: a compressed file is read whole, not in byte ranges", name_,
                     compression_name(compression)));
  end = std::min<std::uint64_t>(end, in.size);
  if (begin > end)
    fail(fmt::format("{}: byte range [{}, {}) is reversed or past the end (the file has {} bytes)", name_, begin,
                     end, in.size));
  buf_.grow(kBufferBytes + kReadSlack, 0);
  fd_ = in.fd;
  own_fd_ = true;
  positioned_ = true;
  sniffed_ = true;  // and found not compressed, above
  size_ = in.size;
  base_ = begin;
  left_ = end - begin;
#ifdef POSIX_FADV_SEQUENTIAL
  ::posix_fadvise(fd_, static_cast<off_t>(begin), static_cast<off_t>(left_), POSIX_FADV_SEQUENTIAL);
#endif
}

void ByteReader::seek(std::uint64_t begin, std::uint64_t end) {
  if (!size_) throw std::logic_error(fmt::format("{}: seek on a stream", name_));
  end = std::min(end, *size_);
  begin = std::min(begin, end);
  eof_ = false;
  consumed_ = begin;
  if (positioned_ && begin >= base_ && begin - base_ <= filled_) {  // bytes already in the buffer
    pos_ = static_cast<std::size_t>(begin - base_);
    end_ = static_cast<std::size_t>(std::min<std::uint64_t>(end - base_, filled_));
    left_ = end - (base_ + end_);
    return;
  }
  if (!positioned_ && ::lseek(fd_, static_cast<off_t>(begin), SEEK_SET) < 0)
    throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
  base_ = begin;
  pos_ = end_ = filled_ = 0;
  left_ = end - begin;
}

std::string_view ByteReader::load(std::uint64_t offset, std::size_t n) {
  if (!positioned_) throw std::logic_error(fmt::format("{}: load on a stream", name_));
  const std::size_t got = read_at(offset, buf_.data(), std::min(n, limit()));
  base_ = offset;
  filled_ = got;
  pos_ = end_ = 0;
  left_ = 0;
  eof_ = true;  // until a seek says what to read
  return {buf_.data(), got};
}

std::size_t ByteReader::read_at(std::uint64_t offset, char* out, std::size_t n) const {
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(fd_, out + got, n - got, static_cast<off_t>(offset + got));
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      continue;
    }
    if (r == 0) break;
    if (errno == EINTR) continue;
    throw InputError(fmt::format("{}: cannot read: {}", name_, std::strerror(errno)));
  }
  return got;
}

ByteReader::~ByteReader() {
  ahead_.reset();  // its thread reads fd_: stopped before fd_ is closed
  if (own_fd_) ::close(fd_);
}

bool ByteReader::refill() {
  if (!sniffed_) return first_fill();
  if (eof_) return false;
  const std::size_t unread = end_ - pos_;
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, unread);
    base_ += pos_;
    pos_ = 0;
    end_ = unread;
  }
  filled_ = end_;  // loaded bytes past end_ are past the part being read (left_ is 0 then)
  if (end_ == limit()) buf_.grow(2 * limit() + kReadSlack, end_);  // a key longer than the buffer
  if (ahead_) return decode_more();
  for (;;) {
    const std::size_t room = static_cast<std::size_t>(std::min<std::uint64_t>(limit() - end_, left_));
    const ssize_t n = room == 0 ? 0
                      : positioned_ ? ::pread(fd_, buf_.data() + end_, room, static_cast<off_t>(base_ + end_))
                                    : ::read(fd_, buf_.data() + end_, room);
    if (n > 0) {
      end_ += static_cast<std::size_t>(n);
      filled_ = end_;
      left_ -= static_cast<std::uint64_t>(n);
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

}  // namespace hrw::io
