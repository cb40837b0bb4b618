// Keys from files, whole or in byte ranges (hrw::ByteRange), read by the CLI's reader and
// placed by its pipeline, with the GIL released: the tasks of hrw.dask.place_files and
// hrw.dask.plan_files. A range is (begin, end, quotes_before_begin, quotes_before_end);
// None reads the whole file (a file that is not split is read as the CLI reads it).
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <pybind11/numpy.h>
#include <pybind11/stl.h>

#include "bindings.hpp"
#include "hrw/key_source.hpp"
#include "hrw/output.hpp"
#include "hrw/place.hpp"
#include "hrw/plan_parts.hpp"

namespace py = pybind11;

namespace hrw::python {

namespace {

using Range = std::tuple<std::uint64_t, std::uint64_t, std::uint64_t, std::uint64_t>;

KeyInput key_input(const std::string& path, const std::optional<std::string>& format,
                   const std::optional<Range>& range, const std::vector<std::string>& ignore_columns) {
  KeyInput in;
  in.path = path;
  in.ignored_columns = ignore_columns;
  if (format) in.format = parse_key_format(*format);
  if (range) {
    const auto& [begin, end, quotes_begin, quotes_end] = *range;
    in.range = ByteRange{begin, end, quotes_begin, quotes_end};
  }
  in.resolved_format();  // a JSON-looking name is refused now, before any task
  return in;
}

template <class T>
py::object array_or_none(const std::vector<T>& values, bool present) {
  if (!present) return py::none();
  return py::array_t<T>(static_cast<py::ssize_t>(values.size()), values.data());
}

// Writes the placement of the range's keys to `out` (published whole by AtomicFile) and
// returns (stats JSON, has_bytes, has_requests).
py::tuple place_range(const ViewPtr& view, const std::string& path, const std::string& out,
                      const std::optional<std::string>& format, const std::optional<Range>& range,
                      std::optional<long long> replicas, const std::optional<std::string>& distinct, bool partial,
                      unsigned threads, const std::vector<std::string>& ignore_columns) {
  const ValidRequest request = view_request(*view, replicas, distinct, partial, threads);
  PlaceJob job;
  job.keys = key_input(path, format, range, ignore_columns);
  job.out = out;
  bool has_bytes = false, has_requests = false;
  std::string stats;
  {
    py::gil_scoped_release release;
    const PlaceStats counts = run_place(request, job, has_bytes, has_requests);  // sets has_*
    stats = place_stats_json(counts, has_bytes, has_requests);
  }
  return py::make_tuple(stats, has_bytes, has_requests);
}

// The parts' stats added up, as one `hrw place --stats` over all their keys.
std::string merge_place_stats(const ViewPtr& view, long long replicas, const std::vector<std::string>& parts,
                              bool has_bytes, bool has_requests) {
  PlaceStats total(*view, static_cast<std::uint32_t>(replicas));
  for (std::size_t p = 0; p < parts.size(); ++p) {
    try {
      total.add(parse_place_stats_json(*view, parts[p]));
    } catch (const InputError& e) {
      throw InputError(fmt::format("placement part {}: {}", p, e.what()));
    }
  }
  return place_stats_json(total, has_bytes, has_requests);
}

// {"summary": JSON, "header": moves.csv's header, "rows": rows without their batch column,
// "row_starts": uint64}; with moved_keys, also "moved": (uint8 data, int64 offsets) and
// "bytes" / "requests" (uint64, per moved key) when the input has them.
py::dict plan_range(const ViewPtr& from, const ViewPtr& to, const std::string& path,
                    const std::optional<std::string>& format, const std::optional<Range>& range,
                    std::optional<long long> replicas, const std::optional<std::string>& distinct, bool partial,
                    unsigned threads, const py::object& batch_size, bool moved_keys,
                    const std::vector<std::string>& ignore_columns, bool allow_single_copy) {
  const std::uint64_t batch = batch_size_of(batch_size);  // with the GIL: it reads a Python int
  const PlanRequests requests = plan_requests(*from, *to, replicas, distinct, partial, threads, allow_single_copy);
  const KeyInput in = key_input(path, format, range, ignore_columns);
  FilePlanPart part;
  {
    py::gil_scoped_release release;
    part = plan_file_part(requests, in, batch, {!moved_keys, moved_keys});
  }
  py::dict out;
  out["summary"] = summary_json(part.summary);
  out["header"] = py::bytes(part.header);
  if (!moved_keys) {
    out["rows"] = py::bytes(part.rows);
    out["row_starts"] = array_or_none(part.row_starts, true);
  } else {
    const KeyBatch& moved = part.moved;
    py::array_t<std::uint8_t> data(static_cast<py::ssize_t>(moved.byte_size()),
                                   reinterpret_cast<const std::uint8_t*>(moved.data()));
    py::array_t<std::int64_t> offsets(static_cast<py::ssize_t>(moved.size() + 1),
                                      reinterpret_cast<const std::int64_t*>(moved.offsets()));
    out["moved"] = py::make_tuple(data, offsets);
    if (part.summary.has_bytes) out["bytes"] = array_or_none(part.moved_bytes, true);
    if (part.summary.has_requests) out["requests"] = array_or_none(part.moved_requests, true);
  }
  return out;
}

py::bytes number_rows(const py::bytes& rows, const py::array_t<std::uint64_t, py::array::c_style>& starts,
                      std::uint64_t first_row, const py::object& batch_size) {
  const std::uint64_t batch = batch_size_of(batch_size);  // with the GIL: it reads a Python int
  const std::string_view text(rows);
  const std::span<const std::uint64_t> at(starts.data(), static_cast<std::size_t>(starts.size()));
  std::string numbered;
  {
    py::gil_scoped_release release;
    numbered = number_move_rows(text, at, first_row, batch);
  }
  return py::bytes(numbered);
}

}  // namespace

void bind_files(py::module_& m) {
  m.def("_key_format_for", [](const std::string& path) {
    return key_format_for(path) == KeyFormat::csv ? "csv" : "lines";
  }, py::arg("path"));
  m.def("_compression", [](const std::string& path) -> py::object {
    const char* name = nullptr;
    {
      py::gil_scoped_release release;
      name = file_compression(path);
    }
    return name ? py::object(py::str(name)) : py::object(py::none());
  }, py::arg("path"));
  m.def("_count_quotes", [](const std::string& path, std::uint64_t begin, std::uint64_t end) {
    py::gil_scoped_release release;
    return count_quotes(path, begin, end);
  }, py::arg("path"), py::arg("begin"), py::arg("end"));
  m.def("_place_range", &place_range, py::arg("view").none(false), py::arg("path"), py::arg("out"), py::kw_only(),
        py::arg("keys_format") = py::none(), py::arg("range") = py::none(), py::arg("replicas") = py::none(),
        py::arg("distinct") = py::none(), py::arg("partial") = false, py::arg("threads") = 1u,
        py::arg("ignore_columns") = std::vector<std::string>{});
  m.def("_merge_place_stats", &merge_place_stats, py::arg("view").none(false), py::arg("replicas"), py::arg("parts"),
        py::kw_only(), py::arg("bytes") = false, py::arg("requests") = false);
  m.def("_plan_range", &plan_range, py::arg("view_a").none(false), py::arg("view_b").none(false), py::arg("path"), py::kw_only(),
        py::arg("keys_format") = py::none(), py::arg("range") = py::none(), py::arg("replicas") = py::none(),
        py::arg("distinct") = py::none(), py::arg("partial") = false, py::arg("threads") = 1u,
        py::arg("batch_size") = 1000, py::arg("moved_keys") = false,
        py::arg("ignore_columns") = std::vector<std::string>{}, py::arg("allow_single_copy") = false);
  m.def("_number_move_rows", &number_rows, py::arg("rows"), py::arg("row_starts"), py::arg("first_row"),
        py::arg("batch_size"));
}

}  // namespace hrw::python
