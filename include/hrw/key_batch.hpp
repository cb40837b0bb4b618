// A batch of keys stored contiguously: one byte buffer and n+1 offsets, so a chunk of
// millions of keys costs two allocations, not one per key.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hrw {

class KeyBatch {
 public:
  KeyBatch() { offsets_.push_back(0); }

  void add(std::string_view key) {
    bytes_.append(key.data(), key.size());
    offsets_.push_back(bytes_.size());
  }
  void clear() {
    bytes_.clear();
    offsets_.assign(1, 0);
  }
  void reserve(std::size_t keys, std::size_t bytes) {
    offsets_.reserve(keys + 1);
    bytes_.reserve(bytes);
  }

  std::size_t size() const { return offsets_.size() - 1; }
  bool empty() const { return size() == 0; }
  std::string_view operator[](std::size_t i) const {
    return std::string_view(bytes_.data() + offsets_[i], offsets_[i + 1] - offsets_[i]);
  }
  const char* data() const { return bytes_.data(); }
  const std::uint64_t* offsets() const { return offsets_.data(); }
  std::size_t byte_size() const { return bytes_.size(); }

 private:
  std::string bytes_;
  std::vector<std::uint64_t> offsets_;
};

}  // namespace hrw
