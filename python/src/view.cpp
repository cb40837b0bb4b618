#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "hrw/hierarchy.hpp"
#include "hrw/view_json.hpp"
#include "keys.hpp"

namespace py = pybind11;

namespace hrw::python {

namespace {

ViewPtr make_view(ClusterSpec spec) { return std::make_shared<ClusterView>(std::move(spec)); }

ViewPtr from_json_text(const std::string& text, const std::string& source) {
  return make_view(parse_cluster_json(text, source));
}

ViewPtr from_ids(const py::sequence& ids, const py::object& seed, const std::string& hash,
                 std::int64_t version, const std::optional<std::vector<double>>& weights) {
  ClusterSpec spec;
  spec.source = "ids";
  spec.seed = key_bytes(seed);
  spec.hash = parse_hash_mode(hash);
  spec.version = version;
  for (py::handle id : ids) spec.nodes.push_back(NodeSpec{key_bytes(id), std::nullopt, {}});
  // Through --weights' own parser: the same count check and message, and "%.17g" gives
  // every double back exactly.
  if (weights) apply_weight_list(spec, fmt::format("{:.17g}", fmt::join(*weights, ",")));
  return make_view(std::move(spec));
}

// Pickled as (source, the view's document as CBOR): the library's one view serialiser
// (view_json.hpp), so every field — hierarchy and rule included — survives the copy, and
// CBOR carries any bytes in ids, labels and the seed.
py::tuple view_state(const ClusterView& v) {
  return py::make_tuple(v.source(), py::bytes(view_cbor(spec_of(v))));
}

ViewPtr view_from_state(const py::tuple& t) {
  if (t.size() != 2) throw py::value_error("ClusterView: bad pickle state");
  const std::string source = t[0].cast<std::string>();
  return make_view(parse_view_cbor(t[1].cast<std::string>(), source));
}

}  // namespace

void bind_view(py::module_& m) {
  py::class_<ClusterView, ViewPtr>(m, "ClusterView",
                                   "A validated cluster view (contract §1); nodes in id order.")
      .def_static(
          "from_json",
          [](const py::object& path) {
            const auto name = py::module_::import("os").attr("fspath")(path).cast<std::string>();
            return make_view(load_cluster_file(name));
          },
          py::arg("path"), "Loads a cluster JSON file (str or path-like), as --cluster FILE does.")
      .def_static(
          "from_dict",
          [](const py::dict& d) {
            const std::string text = py::str(py::module_::import("json").attr("dumps")(d));
            return from_json_text(text, "<dict>");
          },
          py::arg("view"), "A view from the cluster JSON's fields as a dict (str values).")
      .def_static("_from_json_text", &from_json_text, py::arg("text"), py::arg("source"))
      .def_static("from_ids", &from_ids, py::arg("ids"), py::arg("seed") = py::bytes(""),
                  py::arg("hash") = "fnv1a-fmix", py::arg("version") = 0,
                  py::arg("weights") = py::none(),
                  "A view of these node ids (bytes or str), as --nodes does.")
      .def_property_readonly("ids", [](const ClusterView& v) {
        py::list ids;
        for (const Node& n : v.nodes()) ids.append(py::bytes(n.id));
        return ids;
      }, "Node ids (bytes) in index order: place() returns indices into this list.")
      .def_property_readonly("weights", [](const ClusterView& v) {
        std::vector<double> w;
        for (const Node& n : v.nodes()) w.push_back(n.weight);
        return w;
      })
      .def_property_readonly("version", &ClusterView::version)
      .def_property_readonly("seed", [](const ClusterView& v) { return py::bytes(v.seed()); })
      .def_property_readonly("hash", [](const ClusterView& v) { return std::string(to_string(v.hash())); })
      .def_property_readonly("weighted", &ClusterView::weighted)
      .def_property_readonly("source", &ClusterView::source)
      .def_property_readonly("hierarchy", [](const ClusterView& v) -> py::object {
        if (!v.hierarchy()) return py::none();
        return py::cast(v.hierarchy()->labels());
      }, "The hierarchy's labels, top level first (contract §6), or None for a flat view.")
      .def_property_readonly("rule", [](const ClusterView& v) -> py::object {
        if (!v.rule()) return py::none();
        py::dict d;
        d["replicas"] = v.rule()->replicas;
        d["distinct"] = v.rule()->distinct.empty() ? py::object(py::none()) : py::str(v.rule()->distinct);
        d["partial"] = v.rule()->partial;
        return d;
      }, "The view's placement rule (contract §8) as a dict, or None.")
      .def("to_json", [](const ClusterView& v) { return view_json(v); },
           "The cluster file of this view (every field), as hrw writes view files.")
      .def("__len__", &ClusterView::size)
      .def("__repr__", [](const ClusterView& v) {
        return fmt::format("<hrw.ClusterView {} v{}: {} node(s), {}{}>", v.source(), v.version(),
                           v.size(), to_string(v.hash()), v.weighted() ? ", weighted" : "");
      })
      .def(py::pickle([](const ClusterView& v) { return view_state(v); }, &view_from_state));
}

}  // namespace hrw::python
