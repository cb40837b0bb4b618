// hrw bench's report: the JSON (docs/bench.md, "JSON schema"), the table, a saved run read
// back strictly, and the ratios of one run against another.
#include <cmath>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "hrw/bench.hpp"
#include "hrw/errors.hpp"
#include "json_errors.hpp"
#include "text_util.hpp"

namespace hrw {

namespace {

using nlohmann::json;

constexpr const char* kSchemaName = "hrw-bench";

json figure_json(const BenchFigure& f) {
  return {{"name", f.name},     {"unit", f.unit}, {"detail", f.detail},  {"median", f.median},
          {"min", f.min},       {"max", f.max},   {"spread", f.spread()}, {"repetitions", f.repetitions}};
}

json report_json(const BenchReport& r) {
  json figures = json::array();
  for (const BenchFigure& f : r.figures) figures.push_back(figure_json(f));
  return {{"schema", kSchemaName}, {"schema_version", r.schema_version}, {"hrw_version", r.hrw_version},
          {"cpu", r.cpu},          {"targets", r.targets},               {"threads", r.threads},
          {"quick", r.quick},      {"figures", std::move(figures)}};
}

// 4130000000 -> "4.13 G ": three significant digits and an SI prefix.
std::string human(double v) {
  const char* prefix = "";
  if (v >= 1e9) v /= 1e9, prefix = " G ";
  else if (v >= 1e6) v /= 1e6, prefix = " M ";
  else if (v >= 1e3) v /= 1e3, prefix = " k ";
  else prefix = " ";
  return fmt::format("{:.{}f}{}", v, v >= 100 ? 0 : v >= 10 ? 1 : 2, prefix);
}

// Strict reading of one saved report: every field present and of its type.
class Reader {
 public:
  explicit Reader(const std::string& file) : file_(file) {}

  [[noreturn]] void fail(const std::string& where, const std::string& what) const {
    throw InputError(fmt::format("{}: {}: {}", file_, where, what));
  }
  const json& member(const json& obj, const std::string& where, const char* key) const {
    const auto it = obj.find(key);
    if (it == obj.end()) fail(where.empty() ? key : where + "." + key, "missing");
    return *it;
  }
  static std::string path(const std::string& where, const char* key) { return where.empty() ? key : where + "." + key; }
  std::string text(const json& obj, const std::string& where, const char* key) const {
    const json& v = member(obj, where, key);
    if (!v.is_string()) fail(path(where, key), "expected a string");
    return v.get<std::string>();
  }
  // A finite number > 0 (>= 0 with allow_zero).
  double number(const json& obj, const std::string& where, const char* key, bool allow_zero = false) const {
    const json& v = member(obj, where, key);
    if (!v.is_number()) fail(path(where, key), "expected a number");
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0 || (d == 0 && !allow_zero))
      fail(path(where, key), fmt::format("expected a number {} 0, got {}", allow_zero ? ">=" : ">", v.dump()));
    return d;
  }
  std::uint64_t count(const json& obj, const std::string& where, const char* key, std::uint64_t max) const {
    const json& v = member(obj, where, key);
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > max)
      fail(path(where, key), fmt::format("expected an integer from 0 to {}, got {}", max, v.dump()));
    return v.get<std::uint64_t>();
  }
  bool flag(const json& obj, const std::string& where, const char* key) const {
    const json& v = member(obj, where, key);
    if (!v.is_boolean()) fail(path(where, key), "expected true or false");
    return v.get<bool>();
  }
  const json& array(const json& obj, const std::string& where, const char* key) const {
    const json& v = member(obj, where, key);
    if (!v.is_array()) fail(path(where, key), "expected an array");
    return v;
  }

 private:
  std::string file_;
};

}  // namespace

std::string bench_json(const BenchReport& report) { return report_json(report).dump(2) + "\n"; }

std::string bench_json(const BenchReport& report, const BenchComparison& c) {
  json j = report_json(report);
  json ratios = json::array();
  for (const BenchRatio& r : c.ratios)
    ratios.push_back({{"name", r.name}, {"unit", r.unit}, {"now", r.now}, {"base", r.base}, {"ratio", r.ratio}});
  j["comparison"] = {{"file", c.base_file},
                     {"cpu", c.base_cpu},
                     {"ratios", std::move(ratios)},
                     {"only_now", c.only_now},
                     {"only_base", c.only_base},
                     {"other_unit", c.other_unit}};
  return j.dump(2) + "\n";
}

std::string bench_table(const BenchReport& r) {
  std::string targets;
  for (const std::string& t : r.targets) targets += (targets.empty() ? "" : " ") + t;
  std::string out = fmt::format("hrw bench{}: hrw {}, CPU {}, {} thread{}\nSIMD targets: {}\n",
                                r.quick ? " --quick" : "", r.hrw_version, r.cpu, r.threads, r.threads == 1 ? "" : "s",
                                targets.empty() ? "none" : targets);
  out += fmt::format("{:<28} {:>21} {:>7} {:>4} {:>10}  {}\n", "figure", "median", "spread", "reps", "/pairbound",
                     "what ran");
  const BenchFigure* bound = r.find("pairbound");
  for (const BenchFigure& f : r.figures) {
    const std::string of_bound = bound && f.unit == bound->unit && &f != bound
                                     ? fmt::format("{:.2f}", f.median / bound->median)
                                     : "";
    out += fmt::format("{:<28} {:>21} {:>6.1f}% {:>4} {:>10}  {}\n", f.name, human(f.median) + f.unit,
                       100.0 * f.spread(), f.repetitions, of_bound, f.detail);
  }
  out += "median of the repetitions; spread = (max - min) / median; /pairbound = median / pairbound's median\n";
  return out;
}

BenchReport parse_bench_json(const std::string& text, const std::string& file) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(fmt::format("{}: {}", file, json_parse_error(text, e)));
  }
  const Reader in(file);
  if (!j.is_object()) in.fail("the top level", "expected an object (a `hrw bench --format json` report)");
  if (in.text(j, "", "schema") != kSchemaName)
    in.fail("schema", fmt::format("expected \"{}\" (a `hrw bench --format json` report)", kSchemaName));
  const std::uint64_t version = in.count(j, "", "schema_version", 1u << 30);
  if (version != BenchReport::kSchemaVersion)
    in.fail("schema_version", fmt::format("{} is not a version this hrw reads (it reads {})", version,
                                          BenchReport::kSchemaVersion));
  BenchReport r;
  r.hrw_version = in.text(j, "", "hrw_version");
  r.cpu = in.text(j, "", "cpu");
  const json& targets = in.array(j, "", "targets");
  for (std::size_t i = 0; i < targets.size(); ++i) {
    if (!targets[i].is_string()) in.fail(fmt::format("targets[{}]", i), "expected a string");
    r.targets.push_back(targets[i].get<std::string>());
  }
  r.threads = static_cast<unsigned>(in.count(j, "", "threads", 1u << 20));
  r.quick = in.flag(j, "", "quick");
  const json& figures = in.array(j, "", "figures");
  std::set<std::string> names;
  for (std::size_t i = 0; i < figures.size(); ++i) {
    const std::string where = fmt::format("figures[{}]", i);
    const json& f = figures[i];
    if (!f.is_object()) in.fail(where, "expected an object");
    BenchFigure fig;
    fig.name = in.text(f, where, "name");
    if (!names.insert(fig.name).second) in.fail(where + ".name", fmt::format("\"{}\" is listed twice", fig.name));
    fig.unit = in.text(f, where, "unit");
    fig.detail = in.text(f, where, "detail");
    fig.median = in.number(f, where, "median");
    fig.min = in.number(f, where, "min");
    fig.max = in.number(f, where, "max");
    in.number(f, where, "spread", true);  // derived: present and typed, recomputed from min and max
    fig.repetitions = static_cast<unsigned>(in.count(f, where, "repetitions", 1u << 20));
    if (!(fig.min <= fig.median && fig.median <= fig.max))
      in.fail(where, "expected min <= median <= max");
    r.figures.push_back(std::move(fig));
  }
  return r;
}

BenchReport load_bench_json(const std::string& file) {
  // Opened as every input is (docs/errors.md, "Inputs"): a FIFO no one writes to is a
  // bounded wait, not a hang.
  constexpr std::size_t kMaxSavedRun = std::size_t{16} << 20;
  return parse_bench_json(read_whole_file(file, kMaxSavedRun), file);
}

BenchComparison compare_bench(const BenchReport& now, const BenchReport& base, const std::string& base_file) {
  BenchComparison c;
  c.base_file = base_file;
  c.base_cpu = base.cpu;
  for (const BenchFigure& f : now.figures) {
    const BenchFigure* b = base.find(f.name);
    if (!b) {
      c.only_now.push_back(f.name);
      continue;
    }
    if (b->unit != f.unit) {
      c.other_unit.push_back(fmt::format("{} ({} here, {} saved)", f.name, f.unit, b->unit));
      continue;
    }
    c.ratios.push_back({f.name, f.unit, f.median, b->median, f.median / b->median});
  }
  for (const BenchFigure& f : base.figures)
    if (!now.find(f.name)) c.only_base.push_back(f.name);
  return c;
}

std::string comparison_table(const BenchComparison& c) {
  std::string out = fmt::format("compared with {} (CPU {}): ratio = this run / saved run\n", c.base_file, c.base_cpu);
  out += fmt::format("{:<28} {:>21} {:>21} {:>8}\n", "figure", "this run", "saved", "ratio");
  for (const BenchRatio& r : c.ratios)
    out += fmt::format("{:<28} {:>21} {:>21} {:>7.3f}x\n", r.name, human(r.now) + r.unit, human(r.base) + r.unit,
                       r.ratio);
  auto list = [](const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  if (!c.only_now.empty()) out += "only in this run: " + list(c.only_now) + "\n";
  if (!c.only_base.empty()) out += "only in " + c.base_file + ": " + list(c.only_base) + "\n";
  if (!c.other_unit.empty()) out += "not compared, in another unit: " + list(c.other_unit) + "\n";
  return out;
}

}  // namespace hrw
