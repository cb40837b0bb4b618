// Grouped bar charts as plain SVG 1.1: fixed layout arithmetic, fixed number formatting,
// no scripts or external resources, so the file is deterministic and opens anywhere.
#include "output/svg_chart.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace hrw::svg {
namespace {

// Layout, in px. Text widths are estimated (no font metrics in a self-contained file).
constexpr double kLeft = 78, kRight = 24, kTop = 44;
constexpr double kPlotHeight = 220;
constexpr double kPanelTitle = 24, kLegendRow = 20, kXAxisLabel = 34, kPanelGap = 26;
constexpr double kCharWidth = 6.6;  // 11 px sans-serif, average
constexpr double kMinGroupWidth = 64, kBarWidth = 14, kGroupPad = 12;
constexpr double kLabelAngle = 35;  // degrees, when category labels do not fit
constexpr const char* kPalette[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2",
                                    "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"};

std::string num(double v) { return fmt::format("{:.1f}", v); }

// One UTF-8 sequence starting at text[i], or 0 when invalid.
std::size_t utf8_length(const std::string& text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b = byte(i);
  std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n == 0 || i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k)
    if ((byte(i + k) & 0xC0) != 0x80) return 0;
  if (n == 2 && b < 0xC2) return 0;                                // overlong
  if (n == 3 && b == 0xE0 && byte(i + 1) < 0xA0) return 0;         // overlong
  if (n == 3 && b == 0xED && byte(i + 1) >= 0xA0) return 0;        // surrogates
  if (n == 4 && (b > 0xF4 || (b == 0xF0 && byte(i + 1) < 0x90) ||  // overlong / > U+10FFFF
                 (b == 0xF4 && byte(i + 1) >= 0x90)))
    return 0;
  return n;
}

// "Nice" tick step (1, 2, 2.5 or 5 times a power of ten) for about five ticks up to `top`.
double tick_step(double top) {
  const double raw = top / 5;
  const double power = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * power >= raw) return m * power;
  return 10 * power;
}

int decimals_of(double step) {
  int d = 0;
  for (double scaled = step; d < 6 && std::abs(scaled - std::round(scaled)) > 1e-9; ++d)
    scaled *= 10;
  return d;
}

// 90725 -> "90,725": plain numbers with thousands separators, never 9.07e+04; fractions
// keep three significant digits (0.0909).
std::string grouped(double v, int decimals) {
  const std::string digits = fmt::format("{:.{}f}", std::abs(v), decimals);
  const std::size_t point = digits.find('.');
  const std::size_t end = point == std::string::npos ? digits.size() : point;
  std::string out = v < 0 ? "-" : "";
  for (std::size_t i = 0; i < end; ++i) {
    if (i > 0 && (end - i) % 3 == 0) out += ',';  // before each group of three from the point
    out += digits[i];
  }
  return out.append(digits, end);
}

std::string value_text(double v) {
  if (std::abs(v) >= 1000 && std::abs(v) < 1e15) return grouped(v, 0);
  return fmt::format("{:.4g}", v);
}

struct Geometry {
  double group_width = kMinGroupWidth;
  double width = 0;
  bool rotate_labels = false;
  double label_height = 16;  // below the x axis, before the axis title
};

Geometry layout(const std::string& title, const std::vector<BarPanel>& panels) {
  Geometry g;
  std::size_t most_categories = 1, most_series = 1, longest_label = 1;
  double widest_title = title.size() * kCharWidth * 16 / 11;
  for (const auto& p : panels) {
    widest_title = std::max(widest_title, p.title.size() * kCharWidth * 14 / 11);
    most_categories = std::max(most_categories, p.categories.size());
    most_series = std::max(most_series, p.series.size());
    for (const auto& c : p.categories) longest_label = std::max(longest_label, c.size());
  }
  g.group_width = std::max(kMinGroupWidth, most_series * kBarWidth + kGroupPad);
  g.width = std::max({640.0, kLeft + kRight + most_categories * g.group_width,
                      kLeft + kRight + widest_title});
  const double label_width = longest_label * kCharWidth;
  if (label_width > g.group_width - 4) {
    g.rotate_labels = true;
    g.label_height = label_width * std::sin(kLabelAngle * M_PI / 180) + 16;
  }
  return g;
}

double panel_height(const BarPanel& p, const Geometry& g) {
  const double legend_rows = p.series.size() > 1 || p.reference_line ? 1 : 0;
  return kPanelTitle + legend_rows * kLegendRow + kPlotHeight + g.label_height + kXAxisLabel;
}

class PanelWriter {
 public:
  PanelWriter(std::string& out, const Geometry& g, const BarPanel& p, double top)
      : out_(out), g_(g), p_(p), top_(top) {}

  void write() {
    out_ += "<g class=\"panel\">\n";
    out_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"14\" font-weight=\"bold\">{}</text>\n",
                        num(kLeft), num(top_ + 16), xml_text(p_.title));
    double y = top_ + kPanelTitle;
    if (p_.series.size() > 1 || p_.reference_line) {
      legend(y);
      y += kLegendRow;
    }
    plot_top_ = y;
    plot_bottom_ = y + kPlotHeight;
    plot_right_ = g_.width - kRight;
    y_max_ = axis_max();
    y_axis();
    bars();
    reference();
    x_axis();
    out_ += "</g>\n";
  }

 private:
  double axis_max() {
    double top = p_.reference_line.value_or(0);
    for (const auto& s : p_.series)
      for (double v : s.values)
        if (std::isfinite(v)) top = std::max(top, v);
    if (!(top > 0)) top = 1;
    // Headroom for the value printed above each bar (vertical when bars are grouped), so that
    // no value label reaches above the plot into the legend row: a label h px tall above a
    // bar of value v needs v / axis max <= (H - h) / H.
    double headroom = p_.series.size() > 1 ? 1.15 : 1.05;
    for (const auto& s : p_.series)
      for (double v : s.values)
        if (std::isfinite(v) && v > 0 && top > 0)
          headroom = std::max(headroom, v / top * kPlotHeight / (kPlotHeight - value_label_height(v)));
    step_ = tick_step(top * headroom);
    return std::ceil(top * headroom / step_ - 1e-9) * step_;
  }
  // Height above its bar of a value's label: 3 px gap plus the text (10 px font
  // horizontally; vertically its estimated width at 9 px, 0.82 of kCharWidth per char).
  double value_label_height(double v) const {
    if (p_.series.size() == 1) return 3 + 10;
    return 3 + static_cast<double>(value_text(v).size()) * kCharWidth * 9 / 11;
  }
  double y_of(double v) const {
    return plot_bottom_ - std::clamp(v, 0.0, y_max_) / y_max_ * kPlotHeight;
  }

  void legend(double y) {
    double x = kLeft;
    for (std::size_t s = 0; s < p_.series.size(); ++s) {
      out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{}\"/>\n",
                          num(x), num(y), kPalette[s % std::size(kPalette)]);
      out_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", num(x + 16),
                          num(y + 10), xml_text(p_.series[s].name));
      x += 16 + p_.series[s].name.size() * kCharWidth + 18;
    }
    if (p_.reference_line) {
      out_ += fmt::format(
          "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2\" "
          "stroke-dasharray=\"6 4\"/>\n",
          num(x), num(y + 6), num(x + 22), num(y + 6));
      out_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>\n", num(x + 26),
                          num(y + 10), xml_text(reference_name()));
    }
  }
  std::string reference_name() const {
    return p_.reference_label.empty() ? std::string("reference") : p_.reference_label;
  }

  void y_axis() {
    const int d = decimals_of(step_);
    for (int i = 0; i * step_ <= y_max_ + step_ * 1e-6; ++i) {
      const double v = i * step_, y = y_of(v);
      out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#e0e0e0\"/>\n",
                          num(kLeft), num(y), num(plot_right_), num(y));
      out_ += fmt::format(
          "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>\n",
          num(kLeft - 6), num(y + 4), grouped(v, d));
    }
    const double mid = (plot_top_ + plot_bottom_) / 2;
    out_ += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 {} {})\">{}</text>\n",
        num(18), num(mid), num(18), num(mid), xml_text(p_.y_label));
  }

  void bars() {
    const std::size_t n_series = std::max<std::size_t>(1, p_.series.size());
    const double bars_width = n_series * kBarWidth;
    for (std::size_t c = 0; c < p_.categories.size(); ++c) {
      const double group_x = kLeft + c * g_.group_width + (g_.group_width - bars_width) / 2;
      for (std::size_t s = 0; s < p_.series.size(); ++s) {
        const auto& values = p_.series[s].values;
        const double v = c < values.size() ? values[c] : NAN;
        const double x = group_x + s * kBarWidth;
        if (!std::isfinite(v)) {  // no bar: say so, rather than draw a misleading 0
          out_ += fmt::format(
              "<text x=\"{}\" y=\"{}\" font-size=\"9\" text-anchor=\"middle\" fill=\"#666\">n/a</text>\n",
              num(x + kBarWidth / 2), num(plot_bottom_ - 4));
          continue;
        }
        const double y = y_of(v);
        out_ += fmt::format(
            "<rect class=\"bar\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\">"
            "<title>{}: {}</title></rect>\n",
            num(x + 1), num(y), num(kBarWidth - 2), num(plot_bottom_ - y),
            kPalette[s % std::size(kPalette)],
            xml_text(p_.series[s].name + " / " + p_.categories[c]), value_text(v));
        // The value above its bar: horizontal when the bar is alone in its group, vertical
        // when neighbours leave no room for it.
        if (p_.series.size() == 1)
          out_ += fmt::format(
              "<text x=\"{}\" y=\"{}\" font-size=\"10\" text-anchor=\"middle\">{}</text>\n",
              num(x + kBarWidth / 2), num(y - 3), value_text(v));
        else
          out_ += fmt::format(
              "<text x=\"{0}\" y=\"{1}\" font-size=\"9\" transform=\"rotate(-90 {0} {1})\">{2}</text>\n",
              num(x + kBarWidth / 2 + 3), num(y - 3), value_text(v));
      }
    }
  }

  void reference() {
    if (!p_.reference_line) return;
    const double y = y_of(*p_.reference_line);
    out_ += fmt::format(
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#d62728\" stroke-width=\"2\" "
        "stroke-dasharray=\"6 4\"><title>{}: {}</title></line>\n",
        num(kLeft), num(y), num(plot_right_), num(y), xml_text(reference_name()),
        value_text(*p_.reference_line));
  }

  void x_axis() {
    out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n",
                        num(kLeft), num(plot_bottom_), num(plot_right_), num(plot_bottom_));
    out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n",
                        num(kLeft), num(plot_top_), num(kLeft), num(plot_bottom_));
    for (std::size_t c = 0; c < p_.categories.size(); ++c) {
      const double x = kLeft + (c + 0.5) * g_.group_width, y = plot_bottom_ + 14;
      if (g_.rotate_labels)
        out_ += fmt::format(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\" "
            "transform=\"rotate(-{} {} {})\">{}</text>\n",
            num(x), num(y), kLabelAngle, num(x), num(y), xml_text(p_.categories[c]));
      else
        out_ += fmt::format(
            "<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>\n", num(x),
            num(y), xml_text(p_.categories[c]));
    }
    out_ += fmt::format(
        "<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\n",
        num((kLeft + plot_right_) / 2), num(plot_bottom_ + g_.label_height + 18),
        xml_text(p_.x_label));
  }

  std::string& out_;
  const Geometry& g_;
  const BarPanel& p_;
  double top_;
  double plot_top_ = 0, plot_bottom_ = 0, plot_right_ = 0, y_max_ = 1, step_ = 1;
};

}  // namespace

std::string xml_text(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t n = utf8_length(text, i);
    const unsigned char b = static_cast<unsigned char>(text[i]);
    // XML 1.0 (§2.2, Char) forbids C0 controls but tab, LF and CR, and U+FFFE and U+FFFF
    // (EF BF BE, EF BF BF), although they are valid UTF-8: all become U+FFFD, as invalid
    // bytes do, so every SVG parses back whatever bytes the ids hold.
    const bool nonchar = n == 3 && b == 0xEF && static_cast<unsigned char>(text[i + 1]) == 0xBF &&
                         static_cast<unsigned char>(text[i + 2]) >= 0xBE;
    if (n == 0 || nonchar || (n == 1 && b < 0x20 && b != '\t' && b != '\n' && b != '\r')) {
      out += "\xEF\xBF\xBD";  // U+FFFD
      i += nonchar ? 3 : 1;
      continue;
    }
    switch (b) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out.append(text, i, n);
    }
    i += n;
  }
  return out;
}

std::string render(const std::string& title, const std::vector<BarPanel>& panels) {
  const Geometry g = layout(title, panels);
  double height = kTop;
  for (const auto& p : panels) height += panel_height(p, g) + kPanelGap;
  std::string out;
  out += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"{0}\" height=\"{1}\" "
      "viewBox=\"0 0 {0} {1}\" font-family=\"Helvetica, Arial, sans-serif\">\n",
      num(g.width), num(height));
  out += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                     num(g.width), num(height));
  out += fmt::format("<text x=\"{}\" y=\"26\" font-size=\"16\" font-weight=\"bold\">{}</text>\n",
                     num(kLeft), xml_text(title));
  double top = kTop;
  for (const auto& p : panels) {
    PanelWriter(out, g, p, top).write();
    top += panel_height(p, g) + kPanelGap;
  }
  out += "</svg>\n";
  return out;
}

}  // namespace hrw::svg
