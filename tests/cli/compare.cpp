// `hrw compare` through the real binary: formats, key inputs, cluster files, and the exit
// code 2 for every input the user can fix.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "svg_xml_check.hpp"

using hrw::test::run_hrw;
using hrw::test::TempDir;
using nlohmann::json;

namespace {

const json& find_algorithm(const json& report, const std::string& name) {
  for (const auto& a : report["algorithms"])
    if (a["name"] == name) return a;
  static const json none;
  return none;
}

}  // namespace

TEST_CASE("hrw compare --format json", "[compare][cli]") {
  const auto r = run_hrw({"compare", "--sample", "20000", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json report = json::parse(r.out);
  CHECK(report["keys"] == 20000);
  CHECK(report["from"]["nodes"] == 10);
  CHECK(report["to"]["nodes"] == 11);
  CHECK(report["ideal_fraction"].get<double>() == Approx(1.0 / 11));
  REQUIRE(report["algorithms"].size() == 10);  // hrw-cuts (contract §9) is the tenth scheme
  for (const auto& a : report["algorithms"]) {
    INFO(a.dump());
    CHECK(a["moved_fraction"].is_number());
    CHECK(a["note"].is_null());
    for (const char* field : {"peak_to_mean", "min_to_mean", "load_cv", "peak_to_mean_before",
                              "min_to_mean_before", "load_cv_before", "ns_per_key",
                              "bytes_per_node"})
      CHECK(a[field].is_number());
    CHECK(a["after"]["load_ratio"].size() == 11);
  }
  CHECK(find_algorithm(report, "modulo")["moved_fraction"].get<double>() > 0.85);
}

TEST_CASE("hrw compare: table and csv", "[compare][cli]") {
  const auto table = run_hrw({"compare", "--sample", "5000"});
  REQUIRE(table.exit_code == 0);
  CHECK(table.out.find("hrw-fnv1a-fmix") != std::string::npos);
  CHECK(table.out.find("ideal moved fraction 0.0909") != std::string::npos);
  const auto csv = run_hrw({"compare", "--sample", "5000", "--format", "csv"});
  REQUIRE(csv.exit_code == 0);
  CHECK(csv.out.rfind("name,moved_fraction,ideal_fraction,", 0) == 0);
  CHECK(std::count(csv.out.begin(), csv.out.end(), '\n') == 11);  // header + 10 schemes
}

TEST_CASE("hrw compare: keys from a file and from stdin, CRLF stripped", "[compare][cli]") {
  TempDir dir;
  std::string lines, crlf;
  for (int i = 0; i < 3000; ++i) {
    lines += "k" + std::to_string(i) + "\n";
    crlf += "k" + std::to_string(i) + "\r\n";
  }
  const auto from_file =
      run_hrw({"compare", "--keys", dir.write("keys.txt", lines), "--format", "json"});
  REQUIRE(from_file.exit_code == 0);
  const auto from_crlf =
      run_hrw({"compare", "--keys", dir.write("crlf.txt", crlf), "--format", "json"});
  const auto from_stdin = run_hrw({"compare", "--keys", "-", "--format", "json"}, lines);
  REQUIRE(from_stdin.exit_code == 0);
  const json a = json::parse(from_file.out), b = json::parse(from_crlf.out),
             c = json::parse(from_stdin.out);
  CHECK(a["keys"] == 3000);
  for (const char* name : {"modulo", "jump", "slots", "hrw-fnv1a-fmix"}) {
    CHECK(find_algorithm(a, name)["moved_fraction"] == find_algorithm(b, name)["moved_fraction"]);
    CHECK(find_algorithm(a, name)["moved_fraction"] == find_algorithm(c, name)["moved_fraction"]);
  }
}

TEST_CASE("hrw compare: cluster files, weights and a middle removal", "[compare][cli]") {
  TempDir dir;
  const auto a = dir.write("a.json", R"({"nodes": [{"id": "a", "weight": 1}, {"id": "b", "weight": 2},
                                                   {"id": "c", "weight": 1}, {"id": "d", "weight": 1}]})");
  const auto b = dir.write("b.json", R"({"nodes": [{"id": "a", "weight": 1},
                                                   {"id": "c", "weight": 1}, {"id": "d", "weight": 1}]})");
  const auto r = run_hrw({"compare", "--sample", "20000", "--from-cluster", a, "--to-cluster", b,
                          "--format", "json"});
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const json report = json::parse(r.out);
  CHECK(report["ideal_fraction"].get<double>() == Approx(0.4));  // b's 2/5 is handed out
  const json& jump = find_algorithm(report, "jump");
  CHECK(jump["moved_fraction"].is_null());
  CHECK(jump["note"].get<std::string>().find("cannot express") != std::string::npos);
  const json& weighted = find_algorithm(report, "hrw-weighted");
  REQUIRE(weighted.is_object());
  CHECK(weighted["note"].is_null());
  CHECK(std::abs(weighted["moved_fraction"].get<double>() - 0.4) < 0.02);
  CHECK(find_algorithm(report, "modulo")["note"] == "ignores weights");
  CHECK(find_algorithm(report, "ring")["note"].is_null());  // tokens follow the weights
}

TEST_CASE("hrw compare --svg writes a well-formed chart", "[compare][cli][svg]") {
  TempDir dir;
  const std::string path = dir.file("compare.svg");
  const auto r = run_hrw({"compare", "--sample", "5000", "--svg", path});
  REQUIRE(r.exit_code == 0);
  const std::string svg = hrw::test::read_file(path);
  CHECK(hrw::test::xml_wellformedness_error(svg) == "");
  CHECK(hrw::test::count_in_panel(svg, 0, "class=\"bar\"") == 10);
}

TEST_CASE("hrw compare: bad inputs exit 2 with a message", "[compare][cli]") {
  TempDir dir;
  const auto bad_json = dir.write("bad.json", "{\"nodes\": [");
  const auto dup = dir.write("dup.json", R"({"nodes": ["a", "a"]})");
  const std::vector<std::vector<std::string>> cases = {
      {"compare", "--from", "0"},
      {"compare", "--to", "0"},
      {"compare", "--sample", "0"},
      {"compare", "--load-factor", "1"},
      {"compare", "--load-factor", "0.5"},
      {"compare", "--load-factor", "nan"},
      {"compare", "--maglev-size", "65536"},
      {"compare", "--maglev-size", "7"},
      {"compare", "--vnodes", "0"},
      {"compare", "--format", "xml"},
      {"compare", "--keys", dir.file("missing.txt")},
      {"compare", "--keys", dir.path()},
      {"compare", "--keys", "-"},  // empty stdin: no keys
      {"compare", "--from-cluster", dir.file("missing.json")},
      {"compare", "--from-cluster", bad_json},
      {"compare", "--to-cluster", dup},
      {"compare", "--from", "3", "--from-cluster", dup},
      {"compare", "--keys", "-", "--sample", "10"},
      {"compare", "--sample", "10", "--svg", dir.file("no/such/dir.svg")},
  };
  for (const auto& args : cases) {
    const auto r = run_hrw(args);
    INFO(args.back() << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.err.rfind("hrw: ", 0) == 0);
    CHECK(r.out.empty());
  }
}

TEST_CASE("hrw compare: a cluster file with capacity cuts is refused, naming it", "[compare][cli]") {
  hrw::test::TempDir dir;
  const std::string cut = dir.write("cut.json", R"({"version": 1, "nodes": [{"id": "a", "cut": 5}, "b", "c"]})");
  const std::string plain = dir.write("plain.json", R"({"version": 2, "nodes": ["a", "b", "c", "d"]})");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"compare", "--from-cluster", cut, "--to-cluster", plain, "--sample", "10"},
           {"compare", "--from-cluster", plain, "--to-cluster", cut, "--sample", "10"}}) {
    const auto r = hrw::test::run_hrw(args);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "hrw: " + cut + ": this view has capacity cuts (contract section 9), which compare does not place "
                                   "by (its hrw-cuts row makes its own); compare a copy without them, or plan it with "
                                   "hrw plan\n");
  }
}
