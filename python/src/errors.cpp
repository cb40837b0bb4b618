#include <exception>
#include <string_view>

#include "bindings.hpp"

namespace hrw::python {

namespace {

// The keyword argument that sets each library setting (the CLI's flag_for, for Python).
std::string_view keyword_for(Setting setting) {
  switch (setting) {
    case Setting::replica_count: return "replicas";
    case Setting::distinct_label: return "distinct";
    case Setting::node_list: return "ids";
    case Setting::weight_list: return "weights";
    case Setting::hierarchy_list: return "hierarchy";
    case Setting::partial_results: return "partial";
    default: return {};
  }
}

}  // namespace

std::string python_message(const InputError& e) {
  const std::string_view name = keyword_for(e.setting());
  if (name.empty()) return e.what();
  const std::string_view hint =
      e.hint() == Hint::accept_partial ? " (pass partial=True to accept fewer)" : "";
  return std::string(name) + e.detail() + std::string(hint);
}

void register_errors() {
  pybind11::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const InputError& e) {
      PyErr_SetString(PyExc_ValueError, python_message(e).c_str());
    }
  });
}

}  // namespace hrw::python
