// A compressed input decoded on a thread of its own, a few blocks ahead of its reader, so
// that decoding runs beside parsing and placing (as `zstd -dc | hrw` runs it in another
// process, without the pipe's copies: docs/performance.md, "Compressed keys"). Private
// to the I/O layer: ByteReader reads through it.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "compression.hpp"

namespace hrw::io {

class DecodeAhead {
 public:
  // Decodes `fd`'s bytes after `head` (compressed bytes already read): with pread from
  // offset `at` for a regular file (`positioned`), else with read(2), polled so that the
  // destructor never waits on a silent pipe. Does not own fd.
  DecodeAhead(int fd, bool positioned, std::uint64_t at, std::string head, Compression c, std::string name);
  ~DecodeAhead();
  DecodeAhead(const DecodeAhead&) = delete;
  DecodeAhead& operator=(const DecodeAhead&) = delete;

  // Up to n decoded bytes into out, in order; 0 at the end of the input. An error of the
  // decoder or of a read is thrown here, after every byte decoded before it.
  std::size_t read(char* out, std::size_t n);
  // Compressed bytes decoded so far (for progress).
  std::uint64_t consumed() const { return consumed_.load(std::memory_order_relaxed); }

 private:
  struct Block {
    std::string bytes;
    std::exception_ptr error;  // after bytes
    bool last = false;
  };
  void run();
  bool read_raw();  // more compressed bytes into raw_; false at their end
  Block* take_free();

  int fd_;
  bool positioned_;
  std::uint64_t at_;
  std::string raw_;
  std::size_t raw_pos_ = 0, raw_end_ = 0;
  std::unique_ptr<Decoder> decoder_;
  std::string name_;
  std::atomic<std::uint64_t> consumed_{0};

  std::mutex mutex_;
  std::condition_variable changed_;
  std::vector<Block> blocks_;
  std::deque<Block*> free_, ready_;
  bool stop_ = false;
  Block* current_ = nullptr;  // the reader's
  std::size_t current_pos_ = 0;
  std::thread thread_;
};

}  // namespace hrw::io
