// Self-contained SVG bar charts for reports (hrw compare, hrw plan --svg). No scripts, no
// external fonts or styles: the file opens anywhere and can be committed as a doc image.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace hrw::svg {

struct Series {
  std::string name;            // legend entry
  std::vector<double> values;  // one per category; NaN draws no bar (e.g. "cannot express")
};

struct BarPanel {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // bar groups along the x axis
  std::vector<Series> series;           // bars within each group, one colour per series
  std::optional<double> reference_line;  // e.g. the ideal moved fraction
  std::string reference_label;
};

// Panels stacked vertically under one title. Bars start at 0 (negative values are drawn
// as 0). Output is deterministic: same input, same bytes. Each panel is a
// <g class="panel"> and each drawn bar a <rect class="bar">, so tests and scripts can find them.
std::string render(const std::string& title, const std::vector<BarPanel>& panels);

// Text made safe for XML character data and attribute values: & < > " ' escaped, and bytes
// that are not valid UTF-8 or not XML characters (controls) replaced with U+FFFD, since
// node ids are arbitrary bytes.
std::string xml_text(const std::string& text);

}  // namespace hrw::svg
