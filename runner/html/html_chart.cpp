// The per-metric bar chart of the HTML report, drawn as inline SVG. Colours are attributes, not
// CSS, so the chart keeps them where a mail client strips <style>.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/base/text_case.hpp"
#include "runner/html/html_escape.hpp"
#include "runner/html/html_report.hpp"
#include "runner/reporters/report_format.hpp"

namespace gpuqual::html {

std::string status_color(Status s) {
  switch (s) {
    case Status::pass:
      return "#1a7f37";
    case Status::warn:
      return "#bf8700";
    case Status::fail:
      return "#cf222e";
    case Status::skip:
      return "#8c959f";
    case Status::error:
      return "#57606a";
  }
  return "#57606a";
}

std::string outcome_color(Outcome o) {
  switch (o) {
    case Outcome::pass:
      return "#1a7f37";
    case Outcome::warn:
      return "#bf8700";
    case Outcome::fail:
      return "#cf222e";
    case Outcome::inconclusive:
      return "#57606a";
  }
  return "#57606a";
}

namespace {

constexpr double kWidth = 900;
constexpr double kLabelW = 90;  // "GPU 0" column
constexpr double kPlotW = 520;
constexpr double kRowH = 30;
constexpr double kTop = 22;  // axis labels above the rows

// The value at which a row stops passing (direction-aware), when it has an expectation.
std::optional<double> threshold(const MetricRow& r) {
  if (!r.expected) return std::nullopt;
  const double f = r.allowed_drop_pct / 100.0;
  return r.direction == Direction::higher ? *r.expected * (1 - f) : *r.expected * (1 + f);
}

// The smallest and largest value a chart draws (expectations, observations, thresholds); lo > hi
// when there is none.
struct ValueRange {
  double lo = INFINITY;
  double hi = -INFINITY;
};

ValueRange value_range(const std::vector<const MetricRow*>& rows) {
  ValueRange range;
  auto take = [&](std::optional<double> v) {
    if (v && std::isfinite(*v)) {
      range.lo = std::min(range.lo, *v);
      range.hi = std::max(range.hi, *v);
    }
  };
  for (const MetricRow* r : rows) {
    take(r->expected);
    take(r->observed);
    take(threshold(*r));
  }
  return range;
}

// Where a value is drawn on the plot.
struct Scale {
  double lo = 0;
  double hi = 0;
  double x(double v) const { return kLabelW + (v - lo) / (hi - lo) * kPlotW; }
};

// Zoom on the interesting range so a 5 % drop is visible, but keep some room either side.
Scale zoom(ValueRange range) {
  const double span = std::max(range.hi - range.lo, std::abs(range.hi) * 0.02 + 1e-12);
  const bool non_negative = range.lo >= 0;
  Scale s{range.lo - span * 0.35, range.hi + span * 0.15};
  if (non_negative) s.lo = std::max(s.lo, 0.0);  // a bar of a rate never starts below zero
  return s;
}

// The row's label, its plot background, and the band of values that pass (expectation to the
// allowed drop).
std::string row_background(const MetricRow& r, double y, const Scale& s) {
  const std::string label = r.gpu ? fmt::format("GPU {}", *r.gpu) : std::string("node");
  std::string out =
      fmt::format("<text x=\"4\" y=\"{:.1f}\" fill=\"#24292f\">{}</text>\n", y + 18, escape(label));
  out +=
      fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f6f8fa\"/>\n",
                  kLabelW, y + 2, kPlotW, kRowH - 4);
  if (const auto t = threshold(r)) {
    const double a = s.x(std::min(*t, *r.expected));
    const double b = s.x(std::max(*t, *r.expected));
    out += fmt::format(
        "<rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
        "fill=\"#dafbe1\">"
        "<title>passes from {} {}</title></rect>\n",
        a, y + 2, std::max(b - a, 1.0), kRowH - 4, escape(report::value(*t)), escape(r.unit));
  }
  return out;
}

// The bars: the observed value, and in a before/after chart the before value above it.
std::string row_bars(const MetricRow& r, double y, bool before_after, const Scale& s) {
  std::string out;
  const std::string gpu_attr = r.gpu ? std::to_string(*r.gpu) : std::string("node");
  if (before_after && r.expected) {
    out += fmt::format(
        "<rect class=\"bar before\" data-gpu=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"7\" fill=\"#8c959f\">"
        "<title>before: {} {}</title></rect>\n",
        gpu_attr, kLabelW, y + 5, std::max(s.x(*r.expected) - kLabelW, 1.0),
        escape(report::value(r.expected)), escape(r.unit));
  }
  if (r.observed) {
    const double bar_y = before_after ? y + 13 : y + 7;
    const double bar_h = before_after ? 12 : 16;
    out += fmt::format(
        "<rect class=\"bar {}\" data-gpu=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
        "height=\"{:.0f}\" fill=\"{}\">"
        "<title>{}: {} {}</title></rect>\n",
        to_string(r.status), gpu_attr, kLabelW, bar_y, std::max(s.x(*r.observed) - kLabelW, 1.0), bar_h,
        status_color(r.status), before_after ? "after" : "observed", escape(report::value(r.observed)),
        escape(r.unit));
  }
  return out;
}

// The lines on top of the bars: the expectation (not in a before/after chart, whose before bar
// is it) and the fail threshold, where each bar ends relative to it is the verdict.
std::string row_lines(const MetricRow& r, double y, bool before_after, const Scale& s) {
  std::string out;
  if (r.expected && !before_after) {
    const double ex = s.x(*r.expected);
    out += fmt::format(
        "<line class=\"expected\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
        "stroke=\"#24292f\" "
        "stroke-width=\"2\"><title>expected {3} {4}</title></line>\n",
        ex, y + 1, y + kRowH - 1, escape(report::value(r.expected)), escape(r.unit));
  }
  if (const auto t = threshold(r)) {
    out += fmt::format(
        "<line class=\"threshold\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
        "stroke=\"#cf222e\" "
        "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"><title>fails beyond {3} {4}</title></line>\n",
        s.x(*t), y + 1, y + kRowH - 1, escape(report::value(*t)), escape(r.unit));
  }
  return out;
}

// The value, its delta and the status right of the plot.
std::string row_text(const MetricRow& r, double y) {
  const std::string text = r.observed ? fmt::format("{} {}  {}  {}", report::value(r.observed), r.unit,
                                                    report::delta(r.delta_pct), to_upper(to_string(r.status)))
                                      : fmt::format("no value  {}", to_upper(to_string(r.status)));
  return fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\"{}>{}</text>\n", kLabelW + kPlotW + 10,
                     y + 18, status_color(r.status), r.status == Status::pass ? "" : " font-weight=\"bold\"",
                     escape(text));
}

}  // namespace

std::string metric_chart_svg(const std::vector<const MetricRow*>& rows, bool before_after) {
  const ValueRange range = value_range(rows);
  const double height = kTop + kRowH * static_cast<double>(rows.size()) + 8;
  std::string out = fmt::format(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, height);
  if (!(range.lo <= range.hi)) {
    out += fmt::format("<text x=\"4\" y=\"16\" fill=\"#57606a\">no value to draw</text>\n</svg>\n");
    return out;
  }
  const Scale s = zoom(range);
  out += fmt::format("<text x=\"{:.1f}\" y=\"12\" fill=\"#57606a\">{}</text>\n", kLabelW,
                     escape(report::value(s.lo)));
  out += fmt::format("<text x=\"{:.1f}\" y=\"12\" fill=\"#57606a\" text-anchor=\"end\">{}</text>\n",
                     kLabelW + kPlotW, escape(report::value(s.hi)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MetricRow& r = *rows[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    out += row_background(r, y, s);
    out += row_bars(r, y, before_after, s);
    out += row_lines(r, y, before_after, s);
    out += row_text(r, y);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace gpuqual::html
