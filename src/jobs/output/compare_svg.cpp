// The `hrw compare --svg` chart: what moves, and how even the result is.
#include <cmath>

#include <fmt/format.h>

#include "hrw/compare.hpp"
#include "output/svg_chart.hpp"

namespace hrw::compare {

std::string format_svg(const Report& r) {
  svg::BarPanel moved;
  moved.title = "Keys moved by the change (lower is better; ideal = the minimum)";
  moved.x_label = "algorithm";
  moved.y_label = "moved fraction of keys";
  moved.reference_line = r.ideal_fraction;
  moved.reference_label = fmt::format("ideal {:.4f}", r.ideal_fraction);
  svg::Series moved_series{"moved fraction", {}};

  svg::BarPanel load;
  load.title = "Least- and most-loaded node after the change (1 = fair share)";
  load.x_label = "algorithm";
  load.y_label = "load / fair share";
  load.reference_line = 1.0;
  load.reference_label = "fair share";
  svg::Series lowest{"least-loaded node", {}}, highest{"most-loaded node", {}};

  for (const auto& a : r.algorithms) {
    moved.categories.push_back(a.name);
    load.categories.push_back(a.name);
    moved_series.values.push_back(a.moved_fraction.value_or(NAN));  // NaN: "n/a", no bar
    lowest.values.push_back(a.after.min_to_mean);
    highest.values.push_back(a.after.peak_to_mean);
  }
  moved.series.push_back(std::move(moved_series));
  load.series = {std::move(lowest), std::move(highest)};
  const std::string title = fmt::format("hrw compare: {} keys, {} -> {} nodes", r.keys,
                                        r.from.size(), r.to.size());
  return svg::render(title, {moved, load});
}

}  // namespace hrw::compare
