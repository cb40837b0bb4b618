// A batch of keys stored contiguously: one byte buffer and n+1 offsets, so a chunk of
// millions of keys costs two allocations, not one per key. Key i is bytes
// [offsets()[i], offsets()[i + 1]) of data(); the kernels rely on keys being back to back.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <utility>

#include "hrw/raw_buffer.hpp"

namespace hrw {

// Keys in KeyBatch's layout in memory someone else owns (an Arrow or numpy buffer, a
// KeyBatch): key i is data[offsets[i], offsets[i + 1]), so keys lie back to back and the
// engine reads them in place. offsets[0] may be > 0 (a slice); bytes before it are not read.
// The owner keeps the memory alive and unchanged while the view is used.
struct KeyView {
  const char* data = nullptr;
  const std::uint64_t* offsets = nullptr;  // count + 1 entries, non-decreasing
  std::size_t count = 0;

  std::size_t size() const { return count; }
  std::string_view operator[](std::size_t i) const {
    return std::string_view(data + offsets[i], offsets[i + 1] - offsets[i]);
  }
  // Bytes of data the keys reach: every read of the engine stays below this.
  std::size_t end() const { return count ? offsets[count] : 0; }
};

class KeyBatch {
 public:
  // Bytes past the end that Appender::append may write (and read from its source): short
  // keys are copied with one fixed-width move instead of a memcpy call.
  static constexpr std::size_t kCopySlack = 16;

  KeyBatch() { clear(); }
  KeyBatch(const KeyBatch& other) : KeyBatch() { *this = other; }
  KeyBatch& operator=(const KeyBatch& other) {
    if (this == &other) return *this;
    clear();
    reserve(other.size(), other.byte_size());
    if (other.byte_size()) std::memcpy(bytes_.data(), other.data(), other.byte_size());
    std::memcpy(offsets_.data(), other.offsets(), (other.size() + 1) * sizeof(std::uint64_t));
    keys_ = other.keys_;
    return *this;
  }
  // A moved-from batch is empty and reusable.
  KeyBatch(KeyBatch&& other) noexcept
      : bytes_(std::move(other.bytes_)), offsets_(std::move(other.offsets_)),
        keys_(std::exchange(other.keys_, 0)) {}
  KeyBatch& operator=(KeyBatch&& other) noexcept {
    bytes_ = std::move(other.bytes_);
    offsets_ = std::move(other.offsets_);
    keys_ = std::exchange(other.keys_, 0);
    return *this;
  }

  void add(std::string_view key) {
    reserve(size() + 1, byte_size() + key.size());
    if (!key.empty()) std::memcpy(bytes_.data() + byte_size(), key.data(), key.size());
    push_end(byte_size() + key.size());
  }
  void clear() {
    offsets_.grow(1, 0);
    offsets_.data()[0] = 0;
    keys_ = 0;
  }
  // Room for `keys` keys of `bytes` bytes in all (plus kCopySlack).
  void reserve(std::size_t keys, std::size_t bytes) {
    if (offsets_.capacity() == 0) clear();  // moved from
    offsets_.grow(keys + 1, size() + 1);
    bytes_.grow(bytes + kCopySlack, byte_size());
  }

  // Bulk appending for parsers, after reserve() has made room for every key appended: the
  // write position lives in the appender (registers), not in the batch, so a loop over
  // millions of short keys does no loads and stores of bookkeeping. Keys appear in the
  // batch when the appender is destroyed.
  class Appender {
   public:
    explicit Appender(KeyBatch& batch)
        : batch_(batch), bytes_(batch.bytes_.data()), offsets_(batch.offsets_.data()),
          keys_(batch.keys_), end_(batch.byte_size()) {}
    ~Appender() { batch_.keys_ = keys_; }
    Appender(const Appender&) = delete;
    Appender& operator=(const Appender&) = delete;

    // `key` must be followed by kCopySlack - len readable bytes when len < kCopySlack.
    void append(const char* key, std::size_t len) {
      if (len < kCopySlack)
        std::memcpy(bytes_ + end_, key, kCopySlack);
      else
        std::memcpy(bytes_ + end_, key, len);
      end_ += len;
      offsets_[++keys_] = end_;
    }
    std::size_t size() const { return keys_; }

   private:
    KeyBatch& batch_;
    char* bytes_;
    std::uint64_t* offsets_;
    std::size_t keys_;
    std::uint64_t end_;
  };

  std::size_t size() const { return keys_; }
  bool empty() const { return keys_ == 0; }
  std::string_view operator[](std::size_t i) const {
    const std::uint64_t* off = offsets();
    return std::string_view(data() + off[i], off[i + 1] - off[i]);
  }
  const char* data() const { return bytes_.data(); }
  const std::uint64_t* offsets() const { return offsets_.data(); }
  std::size_t byte_size() const { return keys_ ? offsets_.data()[keys_] : 0; }
  KeyView view() const { return KeyView{data(), offsets(), keys_}; }

 private:
  void push_end(std::uint64_t end) { offsets_.data()[++keys_] = end; }

  detail::RawBuffer<char> bytes_;
  detail::RawBuffer<std::uint64_t> offsets_;
  std::size_t keys_ = 0;
};

}  // namespace hrw
