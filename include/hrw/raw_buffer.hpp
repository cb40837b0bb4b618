// A growable array that leaves new elements uninitialised, for buffers that are filled
// again and again (key batches, read buffers): zero-filling memory that is about to be
// overwritten costs a page fault per 4 KiB on first touch, and that showed in the plan's
// profile.
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <utility>

namespace hrw::detail {

template <class T>
class RawBuffer {
 public:
  RawBuffer() = default;
  RawBuffer(RawBuffer&& other) noexcept
      : data_(std::move(other.data_)), capacity_(std::exchange(other.capacity_, 0)) {}
  RawBuffer& operator=(RawBuffer&& other) noexcept {
    data_ = std::move(other.data_);
    capacity_ = std::exchange(other.capacity_, 0);
    return *this;
  }

  T* data() { return data_.get(); }
  const T* data() const { return data_.get(); }
  std::size_t capacity() const { return capacity_; }
  // Keeps the first `used` elements.
  void grow(std::size_t needed, std::size_t used) {
    if (needed <= capacity_) return;
    const std::size_t cap = std::max(needed, capacity_ + capacity_ / 2);
    auto bigger = std::make_unique_for_overwrite<T[]>(cap);
    if (used) std::memcpy(bigger.get(), data_.get(), used * sizeof(T));
    data_ = std::move(bigger);
    capacity_ = cap;
  }

 private:
  std::unique_ptr<T[]> data_;
  std::size_t capacity_ = 0;
};

}  // namespace hrw::detail
