#include <exception>
#include <string_view>

#include "bindings.hpp"
#include "request/plan_settings.hpp"
#include "request/setting_ranges.hpp"

namespace hrw::python {

// The keyword argument that sets each library setting (the CLI's flag_for, for Python).
std::string_view keyword_for(Setting setting) {
  switch (setting) {
    case Setting::replica_count: return "replicas";
    case Setting::distinct_label: return "distinct";
    case Setting::node_list: return "ids";
    case Setting::weight_list: return "weights";
    case Setting::hierarchy_list: return "hierarchy";
    case Setting::partial_results: return "partial";
    case Setting::batch_size: return "batch_size";
    case Setting::max_moves_per_node: return "max_moves_per_node";
    case Setting::max_bytes_per_node: return "max_bytes_per_node";
    case Setting::node_bandwidth: return "node_bandwidth";
    case Setting::max_moved_fraction: return "max_moved_fraction";
    case Setting::cap_by: return "cap_by";
    case Setting::step_versions: return "step_versions";
    case Setting::chart_file: return "svg";
    case Setting::placement_file: return "placement";
    case Setting::thread_count: return "threads";
    case Setting::ignored_columns: return "ignore_columns";
    case Setting::single_copy: return "allow_single_copy=True";
    default: return {};
  }
}

std::optional<std::uint64_t> given_integer(const pybind11::object& value, Setting setting) {
  if (value.is_none()) return std::nullopt;
  PyObject* index = PyNumber_Index(value.ptr());  // int, bool, numpy integers; not float or str
  if (!index) {
    PyErr_Clear();
    throw pybind11::type_error(std::string(keyword_for(setting)) + " must be an integer, got " +
                               std::string(pybind11::str(value.get_type().attr("__name__"))));
  }
  const auto as_int = pybind11::reinterpret_steal<pybind11::object>(index);
  const unsigned long long v = PyLong_AsUnsignedLongLong(as_int.ptr());
  if (PyErr_Occurred()) {  // negative, or beyond 2^64 - 1
    PyErr_Clear();
    refuse_integer(setting, std::string(pybind11::str(as_int)));
  }
  return checked_integer(setting, v);
}

std::uint64_t batch_size_of(const pybind11::object& value) {
  PlanSettings settings;
  settings.batch_size = given_integer(value, Setting::batch_size);
  return check_plan_settings(settings).batch_size;
}

std::string python_message(const InputError& e) {
  if (e.setting() == Setting::none && e.mentioned().empty()) return e.what();
  const std::string_view hint =
      e.hint() == Hint::accept_partial ? " (pass partial=True to accept fewer)" : "";
  return e.worded(keyword_for) + std::string(hint);
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
