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

// Panels stacked vertically under one title.
std::string render(const std::string& title, const std::vector<BarPanel>& panels);

}  // namespace hrw::svg
