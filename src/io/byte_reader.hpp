// Buffered reading of a file or stdin with big read(2) calls: parsers scan the buffer in
// place (memchr), so reading costs no allocation and no copy per key.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "hrw/raw_buffer.hpp"
#include "compression.hpp"
#include "decode_ahead.hpp"

namespace hrw::io {

class ByteReader {
 public:
  // "-" is stdin. InputError "PATH: cannot open: ..." / "PATH: cannot read: is a directory".
  // A gzip or zstd file (or stdin) is recognised by its first bytes and read decoded
  // (compression.hpp); it has no size() and no ranges then.
  explicit ByteReader(const std::string& path);
  // Bytes [begin, end) of a regular file only (end clamped to its size): the end reads as
  // the end of input. InputError "PATH: ..." for a file that is not regular, or begin > end,
  // or compressed (its bytes are not the text's).
  ByteReader(const std::string& path, std::uint64_t begin, std::uint64_t end);
  ~ByteReader();
  ByteReader(const ByteReader&) = delete;
  ByteReader& operator=(const ByteReader&) = delete;

  // Bytes readable past end(), so that parsers may load fixed-width words near the end.
  static constexpr std::size_t kReadSlack = 16;

  const char* cur() const { return buf_.data() + pos_; }
  const char* end() const { return buf_.data() + end_; }
  void consume(std::size_t n) {
    pos_ += n;
    consumed_ += n;
  }
  // Reads more bytes after the unread ones (moving them to the front, growing the buffer
  // when they fill it). False at end of input. Pointers from cur()/end() are invalidated.
  bool refill();

  // A regular file only: reads bytes [begin, end) next (end clamped to the size), keeping
  // the descriptor and the buffer (a reader reused range after range costs no open and no
  // first-touch page faults). Bytes that load() brought are not read again when begin is
  // among them. consumed() counts from the file's start afterwards.
  void seek(std::uint64_t begin, std::uint64_t end = UINT64_MAX);
  // A regular file read by path only: up to n bytes at `offset` (at most a buffer's worth;
  // fewer at the file's end) read into the buffer with one pread and returned, valid until
  // the next call that reads. A seek into them then costs no syscall: a range reader finds
  // both its record starts in one read of its bytes (key_ranges.hpp).
  std::string_view load(std::uint64_t offset, std::size_t n);
  // Up to n bytes at `offset` (pread: the reading position is unchanged); fewer only at
  // the file's end.
  std::size_t read_at(std::uint64_t offset, char* out, std::size_t n) const;

  // Single-byte access for the CSV state machine: -1 at end of input.
  int peek() { return (pos_ < end_ || refill()) ? static_cast<unsigned char>(buf_.data()[pos_]) : -1; }
  void skip() { consume(1); }

  const std::string& name() const { return name_; }
  std::uint64_t consumed() const { return consumed_; }
  // The text's size: a regular file that is not compressed only.
  std::optional<std::uint64_t> size() const { return size_; }
  Compression compression() const { return compression_; }
  // For progress: the file's own bytes (compressed ones when compressed) in all and read so far.
  std::optional<std::uint64_t> file_size() const { return ahead_ ? file_size_ : size_; }
  std::uint64_t file_consumed() const { return ahead_ ? ahead_->consumed() : consumed_; }

 private:
  // Bytes read(2) may fill: the rest of the buffer is the readable slack.
  std::size_t limit() const { return buf_.capacity() - kReadSlack; }
  bool first_fill();   // the first refill() of a stream: sniffs its first bytes
  void start_decoding(Compression c);
  bool decode_more();  // refill() of a compressed input

  std::string name_;
  int fd_ = -1;
  bool own_fd_ = false;
  // A regular file opened by path is read with pread at base_ + end_ (no seek is a
  // syscall); stdin, pipes and FIFOs with read(2) at the descriptor's position.
  bool positioned_ = false;
  bool eof_ = false;
  detail::RawBuffer<char> buf_;
  std::size_t pos_ = 0, end_ = 0;
  std::size_t filled_ = 0;     // bytes of the buffer that hold the file's (>= end_; load() may read past end_)
  std::uint64_t base_ = 0;     // positioned: the file offset of the buffer's first byte
  std::uint64_t consumed_ = 0;
  std::uint64_t left_ = UINT64_MAX;  // bytes read(2) may still return (a range's rest)
  std::optional<std::uint64_t> size_;
  bool sniffed_ = false;  // whether the first bytes were looked at (compressed or not)
  // A compressed input: decoded on a thread of its own, copied into buf_ by refill().
  std::unique_ptr<DecodeAhead> ahead_;
  Compression compression_ = Compression::kNone;
  std::optional<std::uint64_t> file_size_;
};

}  // namespace hrw::io
