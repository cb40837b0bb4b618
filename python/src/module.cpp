// The _hrw extension module: hrw/__init__.py re-exports it with the Python-side helpers.
// The GIL is released whenever the engine runs; keys are converted (or, for (data,
// offsets), validated) before, with the GIL held.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "hrw/placement.hpp"
#include "hrw/plan.hpp"
#include "hrw/output.hpp"
#include "hrw/output_paths.hpp"
#include "hrw/plan_folder.hpp"
#include "request/plan_settings.hpp"
#include "request/setting_ranges.hpp"
#include "hrw/plan_parts.hpp"
#include "hrw/select.hpp"
#include "hrw/version.hpp"
#include "keys.hpp"

namespace py = pybind11;

namespace hrw::python {

namespace {

Engine engine_named(const std::string& name) {
  if (name == "simd") return Engine::simd;
  if (name == "reference") return Engine::reference;
  throw py::value_error(fmt::format("engine must be \"simd\" or \"reference\", got \"{}\"", name));
}
}  // namespace

PlaceOptions place_options(long long replicas, const std::optional<std::string>& distinct,
                           bool partial, unsigned threads, const std::string& engine) {
  // A Python int can be anything: the replica count's one bound (setting_ranges.hpp) refuses it.
  if (replicas < 0) refuse_integer(Setting::replica_count, std::to_string(replicas));
  PlaceOptions o;
  o.replicas = static_cast<std::uint32_t>(checked_integer(Setting::replica_count, static_cast<std::uint64_t>(replicas)));
  o.distinct_label = distinct.value_or("");
  o.allow_partial = partial;
  o.threads = static_cast<unsigned>(checked_integer(Setting::thread_count, threads));  // the CLI's bound
  o.engine = engine_named(engine);
  return o;
}

// docs/plan.md, "Losing replicas": warnings.warn when B keeps fewer replicas of each key.
void warn_replica_loss(const ClusterView& a, const ClusterView& b, const PlanRequests& r) {
  if (auto w = replica_loss_warning(a, b, r))
    if (PyErr_WarnEx(PyExc_UserWarning, w->c_str(), 1) < 0) throw py::error_already_set();
}

// Contract §8: warnings.warn for each view where some nodes lack the distinct label.
void warn_distinct(const ClusterView& view, const PlaceOptions& options) {
  if (auto w = distinct_warning(view, options))
    if (PyErr_WarnEx(PyExc_UserWarning, w->c_str(), 1) < 0) throw py::error_already_set();
}

// Contract §8: the request for `view`: replicas, distinct and partial as the caller gave
// them (None / False: not given), resolved against the view's rule, validated, and the §8
// warning issued.
ValidRequest view_request(const ClusterView& view, std::optional<long long> replicas,
                          const std::optional<std::string>& distinct, bool partial, unsigned threads,
                          const std::string& engine) {
  const PlaceOptions asked = place_options(replicas.value_or(1), distinct, partial, threads, engine);
  const GivenSettings given{replicas.has_value(), distinct.has_value(), partial};
  const ValidRequest request = validate_request(view, options_for(view, asked, given));
  warn_distinct(view, request.options());
  return request;
}

// The same for a plan's two views, each by its own rule.
PlanRequests plan_requests(const ClusterView& view, const ClusterView& to, std::optional<long long> replicas,
                           const std::optional<std::string>& distinct, bool partial, unsigned threads,
                           bool allow_single_copy, const std::string& engine) {
  const PlaceOptions asked = place_options(replicas.value_or(1), distinct, partial, threads, engine);
  const GivenSettings given{replicas.has_value(), distinct.has_value(), partial, allow_single_copy};
  PlanRequests r = options_for_plan(view, to, asked, given);  // each view by its own rule
  warn_distinct(view, r.from.options());
  warn_distinct(to, r.to.options());
  warn_replica_loss(view, to, r);
  return r;
}

namespace {

PlaceOptions request_options(const ClusterView& view, const ClusterView* to,
                             std::optional<long long> replicas,
                             const std::optional<std::string>& distinct, bool partial,
                             unsigned threads, bool allow_single_copy) {
  if (!to) return view_request(view, replicas, distinct, partial, threads, "simd").options();
  return plan_requests(view, *to, replicas, distinct, partial, threads, allow_single_copy, "simd").from.options();
}

// hrw.dask: the request a view (or a plan's two views) places by, as keyword values.
py::dict resolve_request(const ViewPtr& view, const std::optional<ViewPtr>& to,
                         std::optional<long long> replicas, const std::optional<std::string>& distinct,
                         bool partial, bool allow_single_copy) {
  const PlaceOptions o =
      request_options(*view, to ? to->get() : nullptr, replicas, distinct, partial, 0, allow_single_copy);
  py::dict d;
  d["replicas"] = o.replicas;
  d["distinct"] = o.distinct_label.empty() ? py::object(py::none()) : py::str(o.distinct_label);
  d["partial"] = o.allow_partial;
  return d;
}

// A vector handed to numpy without a copy: the array owns it through a capsule.
template <class T>
py::array_t<T> to_numpy(std::vector<T>&& values, std::vector<py::ssize_t> shape) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(shape, owned->data(), owner);
}

py::array_t<std::uint32_t> place(const ViewPtr& view, py::handle keys, std::optional<long long> replicas,
                                 const std::optional<std::string>& distinct, bool partial,
                                 unsigned threads, const std::string& engine) {
  const ValidRequest request = view_request(*view, replicas, distinct, partial, threads, engine);
  const PlaceOptions& options = request.options();
  const PyKeys input(keys);
  Placement out;
  {
    py::gil_scoped_release release;
    BatchPlacer(request).place(input.view(), out);
  }
  const auto n = static_cast<py::ssize_t>(input.view().size());
  if (options.replicas == 1) return to_numpy(std::move(out.nodes), {n});
  return to_numpy(std::move(out.nodes), {n, static_cast<py::ssize_t>(options.replicas)});
}

std::string select(const ViewPtr& view, py::handle key, std::optional<long long> replicas,
                   const std::optional<std::string>& distinct, bool partial) {
  SelectRequest request;
  if (replicas) request.replicas = place_options(*replicas, distinct, partial, 1).replicas;
  request.distinct = distinct;
  request.partial = partial;
  const std::string k = key_bytes(key);
  Selection selection;
  {
    py::gil_scoped_release release;
    selection = select_key(*view, k, request);
  }
  if (selection.warning && PyErr_WarnEx(PyExc_UserWarning, selection.warning->c_str(), 1) < 0)
    throw py::error_already_set();
  return selection_json(*view, selection);
}

const std::uint64_t* loads_of(const std::optional<py::array_t<std::uint64_t, py::array::c_style>>& column,
                              const char* name, std::size_t keys) {
  if (!column) return nullptr;
  if (column->ndim() != 1 || static_cast<std::size_t>(column->size()) != keys)
    throw py::value_error(fmt::format("{}: {} values for {} keys", name, column->size(), keys));
  return column->data();
}

py::tuple plan_part(const ViewPtr& from, const ViewPtr& to, py::handle keys,
                    const std::optional<py::array_t<std::uint64_t, py::array::c_style>>& bytes,
                    const std::optional<py::array_t<std::uint64_t, py::array::c_style>>& requests,
                    std::optional<long long> replicas, const std::optional<std::string>& distinct, bool partial,
                    unsigned threads, const py::object& batch_size, std::uint64_t first_row, bool rows,
                    const std::string& engine, bool allow_single_copy) {
  PartOptions options;
  options.batch_size = batch_size_of(batch_size);
  const PlanRequests rules = plan_requests(*from, *to, replicas, distinct, partial, threads, allow_single_copy, engine);
  options.first_row = first_row;
  options.rows = rows;
  const PyKeys input(keys);
  const KeyLoads loads{loads_of(bytes, "bytes", input.view().size()),
                       loads_of(requests, "requests", input.view().size())};
  PlanPart part;
  {
    py::gil_scoped_release release;
    part = plan_part(rules, input.view(), loads, options);
  }
  const auto moved = static_cast<py::ssize_t>(part.moved.size());
  return py::make_tuple(summary_json(part.summary), to_numpy(std::move(part.moved), {moved}),
                        py::bytes(part.rows));
}

// `replicas`, `distinct`, `partial`: as given to the parts (None: not given); each view then
// places by its own rule (contract §8), as in the parts.
std::string merge(const ViewPtr& from, const ViewPtr& to, std::optional<long long> replicas, const py::object& batch_size,
                  const std::vector<std::string>& parts, const std::optional<std::string>& distinct,
                  bool partial, bool allow_single_copy) {
  std::vector<PlanSummary> summaries;
  for (const std::string& p : parts) summaries.push_back(parse_summary_json(p));
  const PlaceOptions asked = place_options(replicas.value_or(1), distinct, partial, 0);
  const PlanRequests r =
      options_for_plan(*from, *to, asked, {replicas.has_value(), distinct.has_value(), partial, allow_single_copy});
  return summary_json(merge_summaries(*from, *to, r.from.options(), r.to.options(),
                                      batch_size_of(batch_size), summaries));
}

// ---- hrw.plan(out=DIR), hrw.plan_from_placement, hrw.check: the CLI's jobs ----

using LoadColumn = std::optional<py::array_t<std::uint64_t, py::array::c_style>>;

// A plan's settings from Python's keywords, as given: the front door checks them
// (request/plan_settings.hpp), exactly as it checks the CLI's flags.
PlanSettings plan_settings(const py::object& replicas, const std::optional<std::string>& distinct, bool partial,
                           unsigned threads, const py::object& batch_size, const py::object& max_moves_per_node,
                           const py::object& max_bytes_per_node, const py::object& node_bandwidth,
                           bool transitions, const std::string& svg) {
  PlanSettings s;
  s.replicas = given_integer(replicas, Setting::replica_count);
  s.distinct = distinct;
  s.partial = partial;
  s.threads = threads;
  s.batch_size = given_integer(batch_size, Setting::batch_size);
  s.max_moves_per_node = given_integer(max_moves_per_node, Setting::max_moves_per_node);
  s.max_bytes_per_node = given_integer(max_bytes_per_node, Setting::max_bytes_per_node);
  s.node_bandwidth = given_integer(node_bandwidth, Setting::node_bandwidth);
  s.transitions = transitions;
  s.svg = svg;
  return s;
}

// docs/errors.md, "Outputs": as the CLI, no output is one of the run's inputs (nor holds one,
// for a folder), each named by its keyword. A view read from a file counts as an input.
void refuse_outputs_over_inputs(const std::vector<NamedOutput>& given_outputs,
                                const std::vector<NamedInput>& given_inputs,
                                std::initializer_list<std::pair<const char*, const ClusterView*>> views = {}) {
  std::vector<NamedOutput> outputs;
  for (const NamedOutput& o : given_outputs)
    if (!o.path.empty()) outputs.push_back(o);
  std::vector<NamedInput> inputs = given_inputs;
  for (const auto& [name, view] : views)
    if (std::error_code ec; std::filesystem::is_regular_file(view->source(), ec)) inputs.push_back({name, view->source()});
  check_outputs(outputs, inputs);
}

// `hrw plan --from A --to B --keys K --out DIR` over keys in memory: run_plan, or
// run_staged_plan with max_moved_fraction. Returns DIR/summary.json's text.
std::string plan_folder(const ViewPtr& from, const ViewPtr& to, py::handle keys, const LoadColumn& bytes,
                        const LoadColumn& requests, const py::object& replicas,
                        const std::optional<std::string>& distinct, bool partial, unsigned threads,
                        const py::object& batch_size, const std::string& engine, const py::object& max_moves_per_node,
                        const py::object& max_bytes_per_node, const py::object& node_bandwidth,
                        std::optional<double> max_moved_fraction, const std::optional<std::string>& cap_by,
                        bool transitions, const std::string& svg, const std::string& out,
                        const std::optional<std::vector<std::string>>& parts, bool allow_single_copy,
                        const py::object& step_versions) {
  PlanSettings settings = plan_settings(replicas, distinct, partial, threads, batch_size, max_moves_per_node,
                                        max_bytes_per_node, node_bandwidth, transitions, svg);
  settings.engine = engine_named(engine);
  settings.max_moved_fraction = max_moved_fraction;
  settings.cap_by = cap_by;
  settings.step_versions = given_integer(step_versions, Setting::step_versions);
  settings.allow_single_copy = allow_single_copy;
  const ValidPlan plan = check_plan(settings, [&] { return ViewPair{from.get(), to.get()}; });
  warn_distinct(*from, plan.rules.from.options());
  warn_distinct(*to, plan.rules.to.options());
  warn_replica_loss(*from, *to, plan.rules);
  refuse_outputs_over_inputs({{"out", out, true}, {"svg", svg}}, {}, {{"view_a", from.get()}, {"view_b", to.get()}});
  PlanJob job = plan.job();
  job.out_dir = out;
  const PyKeys input(keys);
  const KeysInMemory memory{input.view(),
                            {loads_of(bytes, "bytes", input.view().size()),
                             loads_of(requests, "requests", input.view().size())}};
  job.memory = &memory;
  // hrw.dask with rounds: `keys` are the parts' moved keys, `parts` their summaries.
  std::optional<PlanSummary> all_keys;
  if (parts) {
    if (plan.staged()) throw py::value_error("max_moved_fraction: a staged plan measures every key, not parts");
    std::vector<PlanSummary> summaries;
    for (const std::string& p : *parts) summaries.push_back(parse_summary_json(p));
    all_keys = merge_summaries(*from, *to, plan.rules.from.options(), plan.rules.to.options(), job.batch_size,
                               summaries);
    job.all_keys = &*all_keys;
  }
  if (!plan.staged()) {
    py::gil_scoped_release release;
    return summary_json(run_plan(plan.rules, job));
  }
  StagedPlanJob staged = plan.staged_job();
  staged.step = job;
  py::gil_scoped_release release;
  return staged_summary_json(run_staged_plan(*from, *to, staged));
}

// `hrw plan --from-placement CURRENT --to B [--out DIR]`: the summary's text.
std::string plan_from_placement(const std::string& placement, const ViewPtr& to, const py::object& replicas,
                                const std::optional<std::string>& distinct, bool partial, unsigned threads,
                                const py::object& batch_size, const py::object& max_moves_per_node,
                                const py::object& max_bytes_per_node, const py::object& node_bandwidth,
                                bool transitions, const std::string& svg, const std::optional<std::string>& out,
                                const std::vector<std::string>& ignore_columns) {
  const PlanSettings settings = plan_settings(replicas, distinct, partial, threads, batch_size, max_moves_per_node,
                                              max_bytes_per_node, node_bandwidth, transitions, svg);
  PlacementPlanJob job = check_plan_from_placement(settings, [&] { return to.get(); });
  job.current.path = placement;
  job.current.ignored_columns = ignore_columns;
  warn_distinct(*to, job.place);
  if (!out) {
    for (auto [name, given] : {std::pair{"max_moves_per_node", job.limits.max_moves_per_node.has_value()},
                               std::pair{"max_bytes_per_node", job.limits.max_bytes_per_node.has_value()},
                               std::pair{"transitions", transitions}, std::pair{"svg", !svg.empty()}})
      if (given) throw py::value_error(fmt::format("{}: written to a plan folder: give out=DIR", name));
    py::gil_scoped_release release;
    return summary_json(measure_plan_from_placement(*to, job));
  }
  refuse_outputs_over_inputs({{"out", *out, true}, {"svg", svg}}, {{"placement", placement}}, {{"view_b", to.get()}});
  job.out_dir = *out;
  py::gil_scoped_release release;
  return summary_json(run_plan_from_placement(*to, job));
}

// `hrw check --cluster VIEW --placement CURRENT --format json`: the report's text.
std::string check(const ViewPtr& view, const std::string& placement, std::optional<long long> replicas,
                  const std::optional<std::string>& distinct, bool partial, unsigned threads,
                  const std::vector<std::string>& ignore_columns, const std::optional<std::string>& misplaced) {
  CheckJob job;
  refuse_outputs_over_inputs({{"misplaced", misplaced.value_or("")}}, {{"placement", placement}}, {{"view", view.get()}});
  job.current.path = placement;
  job.current.ignored_columns = ignore_columns;
  job.misplaced = misplaced.value_or("");
  if (replicas) job.current.replicas = place_options(*replicas, distinct, partial, threads).replicas;
  job.place.distinct_label = distinct.value_or("");
  job.place.allow_partial = partial;
  job.place.threads = threads;
  apply_view_rule(*view, job, {replicas.has_value(), distinct.has_value(), partial});
  warn_distinct(*view, job.place);
  py::gil_scoped_release release;
  return check_json(check_placement(*view, job));
}

// `hrw check --plan DIR --through-round N [--through-step S] --placement CURRENT --format json`.
std::string check_progress(const std::string& plan, const std::string& placement,
                           std::optional<long long> through_round, std::optional<long long> through_step,
                           const std::optional<std::string>& misplaced, std::optional<long long> replicas,
                           const std::optional<std::string>& distinct, bool partial, unsigned threads,
                           const std::vector<std::string>& ignore_columns) {
  constexpr long long kMaxRound = 1'000'000'000'000;  // the CLI's bound
  if (!through_round && !through_step)
    throw py::value_error("plan: give through_round=N (or through_step=S for a staged plan)");
  if (through_round && (*through_round < 0 || *through_round > kMaxRound))
    throw py::value_error(fmt::format("through_round must be in [0, {}], got {}", kMaxRound, *through_round));
  if (through_step && (*through_step < 1 || *through_step > kMaxRound))
    throw py::value_error(fmt::format("through_step must be in [1, {}], got {}", kMaxRound, *through_step));
  refuse_outputs_over_inputs({{"misplaced", misplaced.value_or("")}}, {{"placement", placement}});
  ProgressCheckJob job;
  job.plan_dir = plan;
  const bool staged = is_staged_plan(plan);
  if (through_step) {
    if (!staged) throw py::value_error(fmt::format("through_step: {} is not a staged plan (no steps folder)", plan));
    job.plan_dir = plan_step_dir(plan, static_cast<std::uint64_t>(*through_step));
    if (!std::filesystem::is_directory(job.plan_dir))
      throw py::value_error(fmt::format("through_step: {} has no step {}", plan, *through_step));
  } else if (staged) {
    throw py::value_error(fmt::format("plan: {} is a staged plan: give through_step=S", plan));
  }
  // A step given alone is executed whole.
  if (through_round) job.through_round = static_cast<std::uint64_t>(*through_round);
  job.current.path = placement;
  job.current.ignored_columns = ignore_columns;
  if (replicas) job.current.replicas = place_options(*replicas, distinct, partial, threads).replicas;
  job.place.distinct_label = distinct.value_or("");
  job.place.allow_partial = partial;
  job.place.threads = threads;
  job.misplaced = misplaced.value_or("");
  py::gil_scoped_release release;
  return progress_check_json(check_plan_progress(job));
}

// A plan folder held from Python (hrw.dask.plan): the C++ publication, lock included.
struct PyPlanFolder {
  std::unique_ptr<PlanFolder> folder;
  PlanFolder& get() {
    if (!folder) throw py::value_error("the plan folder is closed");
    return *folder;
  }
};

}  // namespace

void bind_functions(py::module_& m) {
  py::class_<PyPlanFolder>(m, "_PlanFolder")
      .def(py::init([](const std::string& dir) { return PyPlanFolder{std::make_unique<PlanFolder>(dir)}; }),
           py::arg("dir"))
      .def_property_readonly("build", [](PyPlanFolder& f) { return f.get().build(); })
      .def("publish", [](PyPlanFolder& f) {
        f.get().publish();
        f.folder.reset();
      })
      .def("close", [](PyPlanFolder& f) { f.folder.reset(); });
  m.attr("__version__") = HRW_VERSION;
  m.attr("NO_NODE") = kNoNode;
  m.def("place", &place, py::arg("view").none(false), py::arg("keys"), py::kw_only(), py::arg("replicas") = py::none(),
        py::arg("distinct") = py::none(), py::arg("partial") = false, py::arg("threads") = 0u,
        py::arg("engine") = "simd",
        "Owner (uint32 array, indices into view.ids) or replica sets (shape (n, replicas)).");
  m.def("_select_json", &select, py::arg("view").none(false), py::arg("key"), py::kw_only(),
        py::arg("replicas") = py::none(), py::arg("distinct") = py::none(), py::arg("partial") = false);
  m.def("_plan_part", &plan_part, py::arg("view_a").none(false), py::arg("view_b").none(false), py::arg("keys"),
        py::kw_only(), py::arg("bytes") = py::none(), py::arg("requests") = py::none(),
        py::arg("replicas") = py::none(), py::arg("distinct") = py::none(), py::arg("partial") = false,
        py::arg("threads") = 0u, py::arg("batch_size") = 1000, py::arg("first_row") = 0,
        py::arg("rows") = false, py::arg("engine") = "simd", py::arg("allow_single_copy") = false);
  m.def("_resolve_request", &resolve_request, py::arg("view").none(false), py::arg("to") = py::none(),
        py::kw_only(), py::arg("replicas") = py::none(), py::arg("distinct") = py::none(),
        py::arg("partial") = false,
        "Contract §8: the replicas, distinct and partial a view (or two) places by.", py::arg("allow_single_copy") = false);
  m.def("_merge_summaries", &merge, py::arg("view_a").none(false), py::arg("view_b").none(false), py::arg("replicas"),
        py::arg("batch_size"), py::arg("parts"), py::kw_only(), py::arg("distinct") = py::none(),
        py::arg("partial") = false, py::arg("allow_single_copy") = false);
  m.def("_plan_folder", &plan_folder, py::arg("view_a").none(false), py::arg("view_b").none(false), py::arg("keys"), py::kw_only(),
        py::arg("bytes") = py::none(), py::arg("requests") = py::none(), py::arg("replicas") = py::none(),
        py::arg("distinct") = py::none(), py::arg("partial") = false, py::arg("threads") = 0u,
        py::arg("batch_size") = py::none(), py::arg("engine") = "simd", py::arg("max_moves_per_node") = py::none(),
        py::arg("max_bytes_per_node") = py::none(), py::arg("node_bandwidth") = py::none(),
        py::arg("max_moved_fraction") = py::none(), py::arg("cap_by") = py::none(),
        py::arg("transitions") = false, py::arg("svg") = "", py::arg("out"), py::arg("parts") = py::none(), py::arg("allow_single_copy") = false,
        py::arg("step_versions") = py::none());
  // hrw.dask: rounds' limits and batch_size refused before any task, in _plan_folder's words.
  // hrw.dask's file functions: (keyword, path, is a folder) outputs against (keyword, path)
  // inputs, by the CLI's rule (docs/errors.md, "Outputs").
  m.def("_check_outputs", [](const std::vector<std::tuple<std::string, std::string, bool>>& outputs,
                             const std::vector<std::pair<std::string, std::string>>& inputs) {
    std::vector<NamedOutput> outs;
    for (const auto& [what, path, folder] : outputs) outs.push_back({what, path, folder});
    std::vector<NamedInput> ins;
    for (const auto& [what, path] : inputs) ins.push_back({what, path});
    refuse_outputs_over_inputs(outs, ins);
  });
  m.def("_check_schedule", [](const py::object& max_moves, const py::object& max_bytes,
                              const py::object& node_bandwidth, const py::object& batch_size) {
    check_plan_settings(plan_settings(py::none(), std::nullopt, false, 0, batch_size, max_moves, max_bytes,
                                      node_bandwidth, false, ""));
  }, py::arg("max_moves_per_node"), py::arg("max_bytes_per_node"), py::arg("node_bandwidth"), py::arg("batch_size"));
  m.def("_plan_from_placement", &plan_from_placement, py::arg("placement"), py::arg("view_b").none(false), py::kw_only(),
        py::arg("replicas") = py::none(), py::arg("distinct") = py::none(), py::arg("partial") = false,
        py::arg("threads") = 0u, py::arg("batch_size") = py::none(), py::arg("max_moves_per_node") = py::none(),
        py::arg("max_bytes_per_node") = py::none(), py::arg("node_bandwidth") = py::none(),
        py::arg("transitions") = false, py::arg("svg") = "", py::arg("out") = py::none(),
        py::arg("ignore_columns") = std::vector<std::string>{});
  m.def("_check", &check, py::arg("view").none(false), py::arg("placement"), py::kw_only(), py::arg("replicas") = py::none(),
        py::arg("distinct") = py::none(), py::arg("partial") = false, py::arg("threads") = 0u,
        py::arg("ignore_columns") = std::vector<std::string>{}, py::arg("misplaced") = py::none());
  m.def("_check_progress", &check_progress, py::arg("plan"), py::arg("placement"), py::kw_only(),
        py::arg("through_round") = py::none(), py::arg("through_step") = py::none(),
        py::arg("misplaced") = py::none(), py::arg("replicas") = py::none(), py::arg("distinct") = py::none(),
        py::arg("partial") = false, py::arg("threads") = 0u, py::arg("ignore_columns") = std::vector<std::string>{});
  m.def("_incompatibility_warning", [](const ViewPtr& a, const ViewPtr& b) {
    return incompatibility_warning(*a, *b);
  }, py::arg("view_a").none(false), py::arg("view_b").none(false));
  m.def("_moves_header", [](bool bytes, bool requests) {
    return py::bytes(MoveCsv({}, bytes, requests).header());
  }, py::arg("bytes") = false, py::arg("requests") = false);
}

}  // namespace hrw::python

PYBIND11_MODULE(_hrw, m) {
  m.doc() = "hrw: rendezvous placement (the C++ engine; import hrw, not this module)";
  hrw::python::register_errors();
  hrw::python::bind_view(m);
  hrw::python::bind_functions(m);
  hrw::python::bind_targets(m);
  hrw::python::bind_files(m);
}
