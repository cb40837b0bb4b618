// hrw::svg::render: well-formed, self-contained, deterministic, one bar per finite value.
#include <catch2/catch.hpp>
#include <cmath>

#include <fstream>

#include "cli_runner.hpp"
#include "output/svg_chart.hpp"
#include "svg_xml_check.hpp"

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
  const std::string expected = hrw::test::read_file(std::string(hrw::test::kSourceDir) + "/tests/data/svg_two_series.svg");
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

// No legend over a label: every value label's box (its text's estimated extent, as the
// chart estimates it: 11 px text at 6.6 px per char, scaled by font size) stays below the
// plot's top, and every legend item above it, for panels whose tallest bars carry long
// labels (grouped: vertical labels; alone: horizontal ones under a reference line's legend).
TEST_CASE("svg: no legend is drawn over a value label (geometry of the emitted boxes)", "[svg]") {
  for (int grouped = 0; grouped < 2; ++grouped) {
    hrw::svg::BarPanel p;
    p.title = "flows";
    p.x_label = "node";
    p.y_label = "keys moved (count)";
    p.categories = {"node-1", "node-2", "node-10"};
    p.series = {{"keys in", {90725, 1200, 88000}}};
    if (grouped) p.series.push_back({"keys out", {91000.5, 100, 5}});
    p.reference_line = 50000;
    p.reference_label = "ideal";
    const std::string svg = hrw::svg::render("t", {p});
    auto attr = [](const std::string& tag, const std::string& name) {
      const auto at = tag.find(" " + name + "=\"");
      REQUIRE(at != std::string::npos);
      const auto start = at + name.size() + 3;
      return tag.substr(start, tag.find('"', start) - start);
    };
    // The plot's top: the y axis, the line from (78, top) down.
    std::string axis_tag;
    for (auto at = svg.find("<line x1=\"78.0\""); at != std::string::npos && axis_tag.empty();
         at = svg.find("<line x1=\"78.0\"", at + 1)) {
      const std::string tag = svg.substr(at, svg.find('>', at) - at);
      if (attr(tag, "x2") == "78.0") axis_tag = tag;
    }
    REQUIRE(!axis_tag.empty());
    const double plot_top = std::stod(attr(axis_tag, "y1"));
    std::size_t values = 0, legend_items = 0;
    for (std::size_t at = svg.find("<text"); at != std::string::npos; at = svg.find("<text", at + 1)) {
      const std::string tag = svg.substr(at, svg.find('>', at) - at);
      const auto text_start = svg.find('>', at) + 1;
      const std::string text = svg.substr(text_start, svg.find('<', text_start) - text_start);
      const double y = std::stod(attr(tag, "y")), size = std::stod(attr(tag, "font-size"));
      const double width = text.size() * 6.6 * size / 11;
      const bool value_label = text.find_first_not_of("0123456789,.") == std::string::npos && !text.empty() &&
                               (size == 9 || size == 10);
      INFO(tag << ">" << text);
      if (value_label) {
        ++values;
        const double top = tag.find("rotate") != std::string::npos ? y - width : y - size;
        CHECK(top >= plot_top);
      } else if (size == 11 && y < plot_top) {
        ++legend_items;
        CHECK(y <= plot_top);  // a legend item's baseline, its box above the plot
      }
    }
    CHECK(values == 3u * p.series.size());
    CHECK(legend_items == p.series.size() + 1);  // each series and the reference line
  }
}

// Value labels of 1,000 and more are plain numbers with thousands separators (never
// 9.07e+04), negative ones with the sign before the first group.
TEST_CASE("svg: value labels group thousands", "[svg]") {
  hrw::svg::BarPanel p;
  p.title = "flows";
  p.x_label = "node";
  p.y_label = "keys";
  p.categories = {"a", "b", "c", "d", "e"};
  p.series = {{"keys", {90725, 1000, 999999, 1234567, -4321}}};
  const std::string svg = hrw::svg::render("t", {p});
  for (const char* label : {">90,725<", ">1,000<", ">999,999<", ">1,234,567<", ">-4,321<"}) {
    INFO(label);
    CHECK(svg.find(label) != std::string::npos);
  }
  CHECK(svg.find(",90,725") == std::string::npos);
}
