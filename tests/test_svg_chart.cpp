// hrw::svg::render: well-formed, self-contained, deterministic, one bar per finite value.
#include <catch2/catch.hpp>
#include <cmath>

#include <fstream>

#include "cli_runner.hpp"
#include "output/svg_chart.hpp"
#include "test_svg_xml_check.hpp"

using hrw::test::count_in_panel;
using hrw::test::xml_wellformedness_error;

namespace {

hrw::svg::BarPanel two_series_panel() {
  hrw::svg::BarPanel p;
  p.title = "Load <per> node & \"friends\"";
  p.x_label = "node";
  p.y_label = "keys";
  p.categories = {"a", "b&c", "<d>"};
  p.series = {{"before", {1, 2, 3}}, {"after", {3, NAN, 1}}};
  p.reference_line = 2.5;
  p.reference_label = "ideal 'x'";
  return p;
}

}  // namespace

TEST_CASE("svg: the checker itself rejects what it should", "[svg]") {
  CHECK(xml_wellformedness_error("<a><b x=\"1\"/>t &amp; u</a>") == "");
  CHECK(xml_wellformedness_error("<a><b></a></b>") != "");
  CHECK(xml_wellformedness_error("<a x=1/>") != "");
  CHECK(xml_wellformedness_error("<a>x & y</a>") != "");
  CHECK(xml_wellformedness_error("<a x=\"1\" x=\"2\"/>") != "");
  CHECK(xml_wellformedness_error("<a/><b/>") != "");
  CHECK(xml_wellformedness_error("<a>") != "");
}

TEST_CASE("svg: render is well-formed XML with escaped text", "[svg]") {
  const std::string svg = hrw::svg::render("A & B <chart>", {two_series_panel()});
  INFO(svg);
  CHECK(xml_wellformedness_error(svg) == "");
  CHECK(svg.find("A &amp; B &lt;chart&gt;") != std::string::npos);
  CHECK(svg.find("b&amp;c") != std::string::npos);
  CHECK(svg.find("ideal &apos;x&apos;") != std::string::npos);
  // Self-contained: no scripts, no external references.
  CHECK(svg.find("<script") == std::string::npos);
  CHECK(svg.find("href") == std::string::npos);
  CHECK(svg.find("@import") == std::string::npos);
}

TEST_CASE("svg: one bar per finite value, NaN drawn as n/a", "[svg]") {
  const std::string svg = hrw::svg::render("t", {two_series_panel(), two_series_panel()});
  CHECK(count_in_panel(svg, 0, "class=\"bar\"") == 5);
  CHECK(count_in_panel(svg, 0, ">n/a<") == 1);
  CHECK(count_in_panel(svg, 1, "class=\"bar\"") == 5);
}

// Against a committed expectation: the same bytes in every process, build and platform (a
// comparison of two renders in one process would pass with per-process nondeterminism).
// After an intended change of the chart, copy the .actual.svg the failure leaves in the
// working directory over tests/data/svg_two_series.svg.
TEST_CASE("svg: deterministic output", "[svg]") {
  const std::string svg = hrw::svg::render("t", {two_series_panel()});
  const std::string expected = hrw::test::read_file(std::string(HRW_SOURCE_DIR) + "/tests/data/svg_two_series.svg");
  if (svg != expected) std::ofstream("svg_two_series.actual.svg", std::ios::binary) << svg;
  REQUIRE(!expected.empty());
  CHECK(svg == expected);
}

TEST_CASE("svg: degenerate panels still render", "[svg]") {
  hrw::svg::BarPanel empty;
  hrw::svg::BarPanel zeros;
  zeros.categories = {"x"};
  zeros.series = {{"s", {0}}};
  hrw::svg::BarPanel many;
  for (int i = 0; i < 200; ++i) many.categories.push_back("a-rather-long-node-name-" + std::to_string(i));
  many.series = {{"s", std::vector<double>(200, 1e9)}};
  const std::string svg = hrw::svg::render("", {empty, zeros, many});
  CHECK(xml_wellformedness_error(svg) == "");
  CHECK(svg.find("nan") == std::string::npos);
  CHECK(svg.find("inf") == std::string::npos);
}

TEST_CASE("svg: xml_text replaces invalid UTF-8 and control bytes", "[svg]") {
  using hrw::svg::xml_text;
  CHECK(xml_text("caf\xC3\xA9") == "caf\xC3\xA9");
  CHECK(xml_text("a\xFF" "b") == "a\xEF\xBF\xBD" "b");
  CHECK(xml_text(std::string("a\x01" "b")) == "a\xEF\xBF\xBD" "b");
  CHECK(xml_text("\xC0\x80") == "\xEF\xBF\xBD\xEF\xBF\xBD");  // overlong NUL
  const std::string svg = hrw::svg::render("id \xFE\x02", {two_series_panel()});
  CHECK(xml_wellformedness_error(svg) == "");
}
