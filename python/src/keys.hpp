// Keys from Python, as the engine reads them (hrw::KeyView). A (data, offsets) pair is
// read in place; every other form is copied once into a KeyBatch. Needs the GIL to build
// and to destroy (it holds Python buffers), not to read view().
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <pybind11/pybind11.h>

#include "hrw/key_batch.hpp"

namespace hrw::python {

// A Python buffer held for the lifetime of the keys (PyBuffer_Release on destruction).
class HeldBuffer {
 public:
  HeldBuffer() = default;
  HeldBuffer(pybind11::handle object, const char* what);
  ~HeldBuffer();
  HeldBuffer(const HeldBuffer&) = delete;
  HeldBuffer& operator=(const HeldBuffer&) = delete;

  const Py_buffer& get() const { return buffer_; }
  std::size_t items() const { return static_cast<std::size_t>(buffer_.len / buffer_.itemsize); }
  std::string format() const { return buffer_.format ? buffer_.format : "B"; }

 private:
  Py_buffer buffer_{};
  bool held_ = false;
};

class PyKeys {
 public:
  // Accepts a list/tuple of bytes or str, a pandas Series or Index of them, a numpy S, U or
  // object array, or a pair (data: uint8 buffer, offsets: int64 buffer of n + 1).
  // TypeError for other types, ValueError for inconsistent offsets.
  explicit PyKeys(pybind11::handle keys);

  const KeyView& view() const { return view_; }
  bool zero_copy() const { return zero_copy_; }

 private:
  void from_pair(pybind11::handle data, pybind11::handle offsets);
  void from_numpy(pybind11::handle array);
  void from_objects(pybind11::handle sequence);
  void from_items(PyObject* const* items, std::size_t n);

  std::optional<HeldBuffer> data_, offsets_;  // the pair form only
  KeyBatch owned_;
  KeyView view_;
  bool zero_copy_ = false;
};

// One key: bytes, bytearray or str (UTF-8; lone surrogates from errors="surrogateescape"
// decoding become the bytes they stand for).
std::string key_bytes(pybind11::handle key);

}  // namespace hrw::python
