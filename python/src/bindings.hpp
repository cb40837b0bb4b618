// The pieces of the _hrw extension module, one file each: errors, views, keys, functions.
#pragma once
#include <memory>
#include <string>

#include <pybind11/pybind11.h>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"

namespace hrw::python {

using ViewPtr = std::shared_ptr<ClusterView>;  // pybind11 holders are non-const; views are immutable anyway

// hrw::InputError -> ValueError carrying the CLI's message, with the Python keyword
// ("replicas") where the CLI names its flag ("--replicas").
void register_errors();
std::string python_message(const InputError& error);

// hrw.ClusterView: from_json, from_dict, from_ids; read-only properties; pickling (what
// ships a view to Dask workers).
void bind_view(pybind11::module_& m);

// place, select, plan parts, the summary merge and the benchmark's C++ timing.
void bind_functions(pybind11::module_& m);

// compiled_targets, runnable_targets, active_target, force_target (include/hrw/targets.hpp).
void bind_targets(pybind11::module_& m);

}  // namespace hrw::python
