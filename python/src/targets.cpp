// hrw.compiled_targets, runnable_targets, active_target, force_target: the library's targets
// API (include/hrw/targets.hpp) by name. HRW_TARGET is read by the library itself.
#include <string>
#include <vector>

#include <pybind11/stl.h>

#include "bindings.hpp"
#include "hrw/targets.hpp"

namespace py = pybind11;

namespace hrw::python {

namespace {

std::vector<std::string> names(const std::vector<SimdTarget>& targets) {
  std::vector<std::string> out;
  for (const SimdTarget& t : targets) out.push_back(t.name);
  return out;
}

}  // namespace

void bind_targets(py::module_& m) {
  m.def("compiled_targets", [] { return names(compiled_targets()); },
        "The SIMD targets compiled into the kernels, best first.");
  m.def("runnable_targets", [] { return names(runnable_targets()); },
        "Those of the compiled targets that this CPU runs, best first.");
  m.def("active_target", [] { return active_target().name; },
        "The target the next placement uses (after HRW_TARGET, if set).");
  m.def("force_target", [](const std::string& name) { return force_target(name).name; },
        py::arg("name"),
        "Forces the target called name (any case); \"\" or \"auto\" restores detection. "
        "Returns the target now active. ValueError for an unknown or unrunnable name.");
  m.def("_forced_target", [] { return forced_target(); });
  m.def("_force_target_bits", [](std::int64_t bits) { force_target(bits); }, py::arg("bits"));
}

}  // namespace hrw::python
