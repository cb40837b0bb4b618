#include "keys.hpp"

#include <cstdint>
#include <cstring>
#include <string_view>

#include <fmt/format.h>
#include <pybind11/numpy.h>

namespace py = pybind11;

namespace hrw::python {

namespace {

bool is_key_object(py::handle h) {
  return PyBytes_Check(h.ptr()) || PyByteArray_Check(h.ptr()) || PyUnicode_Check(h.ptr());
}

std::string type_name(py::handle h) { return py::str(py::type::handle_of(h).attr("__name__")); }

// The bytes of one key object. `keep` receives any temporary the view points into.
std::string_view key_view(py::handle key, std::size_t index, std::vector<py::object>& keep) {
  PyObject* o = key.ptr();
  if (PyBytes_Check(o)) return {PyBytes_AS_STRING(o), static_cast<std::size_t>(PyBytes_GET_SIZE(o))};
  if (PyByteArray_Check(o))
    return {PyByteArray_AS_STRING(o), static_cast<std::size_t>(PyByteArray_GET_SIZE(o))};
  if (!PyUnicode_Check(o))
    throw py::type_error(fmt::format("key {} is {}, not bytes or str", index, type_name(key)));
  Py_ssize_t len = 0;
  if (const char* utf8 = PyUnicode_AsUTF8AndSize(o, &len)) return {utf8, static_cast<std::size_t>(len)};
  PyErr_Clear();  // lone surrogates: what errors="surrogateescape" decoding made of raw bytes
  PyObject* raw = PyUnicode_AsEncodedString(o, "utf-8", "surrogateescape");
  if (!raw) {
    PyErr_Clear();
    throw py::value_error(fmt::format("key {} is a str that is not valid Unicode text", index));
  }
  keep.push_back(py::reinterpret_steal<py::object>(raw));
  return {PyBytes_AS_STRING(raw), static_cast<std::size_t>(PyBytes_GET_SIZE(raw))};
}

void fill(KeyBatch& batch, const std::vector<std::string_view>& keys) {
  std::size_t bytes = 0;
  for (auto k : keys) bytes += k.size();
  batch.clear();
  batch.reserve(keys.size(), bytes);
  for (auto k : keys) batch.add(k);
}

bool is_int64_format(const std::string& f) {
  std::string_view s = f;
  if (!s.empty() && (s[0] == '<' || s[0] == '=' || s[0] == '@')) s.remove_prefix(1);
  return s == "q" || s == "l" || s == "Q" || s == "L";
}

bool is_byte_format(const std::string& f) { return f == "B" || f == "b" || f == "c" || f == "=B" || f == "<B"; }

}  // namespace

HeldBuffer::HeldBuffer(py::handle object, const char* what) {
  if (PyObject_GetBuffer(object.ptr(), &buffer_, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) {
    PyErr_Clear();
    throw py::type_error(fmt::format("keys: {} must be a contiguous buffer (a numpy array), got {}",
                                     what, type_name(object)));
  }
  if (buffer_.ndim > 1) {
    PyBuffer_Release(&buffer_);
    throw py::type_error(fmt::format("keys: {} must be one-dimensional, got {} dimensions", what,
                                     buffer_.ndim));
  }
  held_ = true;
}

HeldBuffer::~HeldBuffer() {
  if (held_) PyBuffer_Release(&buffer_);
}

PyKeys::PyKeys(py::handle keys) {
  PyObject* o = keys.ptr();
  if (is_key_object(keys))
    throw py::type_error(fmt::format("keys: a single {} is one key; pass a list of keys", type_name(keys)));
  // (data, offsets): two buffers, the offsets not a key object. data may be bytes; a
  // tuple of two bytes is two keys.
  if (PyTuple_Check(o) && PyTuple_GET_SIZE(o) == 2 && !is_key_object(PyTuple_GET_ITEM(o, 1)) &&
      PyObject_CheckBuffer(PyTuple_GET_ITEM(o, 0)) && PyObject_CheckBuffer(PyTuple_GET_ITEM(o, 1))) {
    from_pair(PyTuple_GET_ITEM(o, 0), PyTuple_GET_ITEM(o, 1));
    return;
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    from_objects(keys);
    return;
  }
  if (py::isinstance<py::array>(keys)) {
    from_numpy(keys);
    return;
  }
  if (py::hasattr(keys, "to_numpy") && py::hasattr(keys, "dtype")) {  // pandas Series, Index
    from_numpy(keys.attr("to_numpy")());
    return;
  }
  throw py::type_error(fmt::format(
      "keys: expected a list or tuple of bytes/str, a pandas Series, a numpy S/U/object array or "
      "(data, offsets), got {}", type_name(keys)));
}

void PyKeys::from_pair(py::handle data, py::handle offsets) {
  const HeldBuffer& d = data_.emplace(data, "data");
  const HeldBuffer& o = offsets_.emplace(offsets, "offsets");
  if (d.get().itemsize != 1 || !is_byte_format(d.format()))
    throw py::type_error(fmt::format("keys: data must be a uint8 array, got format '{}'", d.format()));
  if (o.get().itemsize != 8 || !is_int64_format(o.format()))
    throw py::type_error(fmt::format("keys: offsets must be an int64 array, got format '{}'", o.format()));
  const std::size_t entries = o.items();
  if (entries == 0) throw py::value_error("keys: offsets must hold n + 1 entries (at least 1), got 0");
  // Signed and unsigned 64-bit integers share their representation: once every offset is
  // known to be non-negative, the buffer is read as the engine's uint64 offsets in place.
  const auto* off = static_cast<const std::uint64_t*>(o.get().buf);
  const bool is_signed = o.format().back() == 'q' || o.format().back() == 'l';
  const auto data_size = static_cast<std::uint64_t>(d.get().len);
  for (std::size_t i = 0; i < entries; ++i) {
    if (is_signed && static_cast<std::int64_t>(off[i]) < 0)
      throw py::value_error(fmt::format("keys: offsets[{}] = {} is negative", i,
                                        static_cast<std::int64_t>(off[i])));
    if (i > 0 && off[i] < off[i - 1])
      throw py::value_error(fmt::format("keys: offsets[{}] = {} is less than offsets[{}] = {}", i,
                                        off[i], i - 1, off[i - 1]));
  }
  if (off[entries - 1] > data_size)
    throw py::value_error(fmt::format("keys: offsets[{}] = {} is past the end of the {} data bytes",
                                      entries - 1, off[entries - 1], data_size));
  view_ = KeyView{static_cast<const char*>(d.get().buf), off, entries - 1};
  zero_copy_ = true;
}

void PyKeys::from_numpy(py::handle object) {
  if (!py::isinstance<py::array>(object))
    throw py::type_error(fmt::format("keys: to_numpy() gave {}, not a numpy array", type_name(object)));
  const auto array = py::reinterpret_borrow<py::array>(object);
  if (array.ndim() != 1)
    throw py::type_error(fmt::format("keys: the array must be one-dimensional, got {} dimensions", array.ndim()));
  const char kind = array.dtype().kind();
  if (kind == 'O') {  // the array's items are the key objects' pointers, in order
    const auto c = py::array::ensure(array, py::array::c_style);
    return from_items(static_cast<PyObject* const*>(c.data()), static_cast<std::size_t>(c.size()));
  }
  if (kind != 'S' && kind != 'U')
    throw py::type_error(fmt::format(
        "keys: a numpy array of dtype {} is not keys (use bytes S, str U or object arrays)",
        std::string(py::str(array.dtype()))));
  const auto c = py::array::ensure(array, py::array::c_style);
  const std::size_t width = static_cast<std::size_t>(c.itemsize());
  const auto* base = static_cast<const char*>(c.data());
  const std::size_t n = static_cast<std::size_t>(c.size());
  std::vector<std::string_view> keys(n);
  std::vector<py::object> keep;
  if (kind == 'S') {
    // numpy's own semantics: an S item's trailing NUL bytes are padding, not key bytes.
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t len = width;
      while (len > 0 && base[i * width + len - 1] == '\0') --len;
      keys[i] = {base + i * width, len};
    }
  } else {
    // U items are UCS-4 code points padded with U+0000; the key is their UTF-8.
    const auto* units = reinterpret_cast<const std::uint32_t*>(base);
    const std::size_t chars = width / 4;
    keep.reserve(n);
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t len = chars;
      while (len > 0 && units[i * chars + len - 1] == 0) --len;
      PyObject* s = PyUnicode_FromKindAndData(PyUnicode_4BYTE_KIND, units + i * chars,
                                              static_cast<Py_ssize_t>(len));
      if (!s) throw py::error_already_set();
      keep.push_back(py::reinterpret_steal<py::object>(s));
      keys[i] = key_view(keep.back(), i, keep);
    }
  }
  fill(owned_, keys);
  view_ = owned_.view();
}

void PyKeys::from_objects(py::handle sequence) {
  const auto fast = py::reinterpret_steal<py::object>(PySequence_Fast(sequence.ptr(), "keys"));
  if (!fast) throw py::error_already_set();
  from_items(PySequence_Fast_ITEMS(fast.ptr()),
             static_cast<std::size_t>(PySequence_Fast_GET_SIZE(fast.ptr())));
}

void PyKeys::from_items(PyObject* const* items, std::size_t n) {
  // One pass: each key object is visited once (they are scattered in memory: a second
  // pass would miss the cache again), the batch growing as it must.
  owned_.clear();
  owned_.reserve(n, 16 * n);
  std::vector<py::object> keep;
  for (std::size_t i = 0; i < n; ++i) {
    owned_.add(key_view(items[i], i, keep));
    keep.clear();
  }
  view_ = owned_.view();
}

std::string key_bytes(py::handle key) {
  if (!is_key_object(key)) throw py::type_error(fmt::format("key is {}, not bytes or str", type_name(key)));
  std::vector<py::object> keep;
  return std::string(key_view(key, 0, keep));
}

}  // namespace hrw::python
