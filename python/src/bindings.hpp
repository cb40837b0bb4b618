// The pieces of the _hrw extension module, one file each: errors, views, keys, functions.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include <pybind11/pybind11.h>

#include "hrw/cluster_view.hpp"
#include "hrw/errors.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"

namespace hrw::python {

using ViewPtr = std::shared_ptr<ClusterView>;  // pybind11 holders are non-const; views are immutable anyway

// hrw::InputError -> ValueError carrying the CLI's message, with the Python keyword
// ("replicas") where the CLI names its flag ("--replicas").
void register_errors();
std::string python_message(const InputError& error);
// The keyword argument that sets each setting ("" where Python has none).
std::string_view keyword_for(Setting setting);

// A Python integer (or None: not given) for an unsigned setting: anything int() takes
// without loss, then the setting's own bound (request/setting_ranges.hpp), which also
// words a negative or huge value. TypeError naming the keyword for a non-integer.
std::optional<std::uint64_t> given_integer(const pybind11::object& value, Setting setting);
// A plan's batch size from its keyword (None: the default), checked by the plan's front door.
std::uint64_t batch_size_of(const pybind11::object& value);

// A request from Python keywords (None / False: not given): range-checked, resolved against
// the view's rule (contract §8), validated, and the §8 warning issued as a UserWarning.
PlaceOptions place_options(long long replicas, const std::optional<std::string>& distinct, bool partial,
                           unsigned threads, const std::string& engine = "simd");
ValidRequest view_request(const ClusterView& view, std::optional<long long> replicas,
                          const std::optional<std::string>& distinct, bool partial, unsigned threads,
                          const std::string& engine = "simd");
// The same for a plan's two views, each by its own rule; warns when B keeps fewer replicas
// (docs/plan.md, "Losing replicas"), refuses a single copy unless allow_single_copy.
PlanRequests plan_requests(const ClusterView& view, const ClusterView& to, std::optional<long long> replicas,
                           const std::optional<std::string>& distinct, bool partial, unsigned threads,
                           bool allow_single_copy, const std::string& engine = "simd");

// hrw.ClusterView: from_json, from_dict, from_ids; read-only properties; pickling (what
// ships a view to Dask workers).
void bind_view(pybind11::module_& m);

// place, select, plan parts, the summary merge and the benchmark's C++ timing.
void bind_functions(pybind11::module_& m);

// compiled_targets, runnable_targets, active_target, force_target (include/hrw/targets.hpp).
void bind_targets(pybind11::module_& m);

// Keys read from files and byte ranges of them by the C++ reader: what hrw.dask's
// place_files and plan_files run on the workers (docs/python.md, "hrw.dask over files").
void bind_files(pybind11::module_& m);

}  // namespace hrw::python
