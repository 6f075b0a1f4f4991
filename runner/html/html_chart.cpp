// The per-metric bar chart of the HTML report, drawn as inline SVG. Colours are attributes, not
// CSS, so the chart keeps them where a mail client strips <style>.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "runner/html/html_escape.hpp"
#include "runner/html/html_report.hpp"
#include "runner/reporters/report_format.hpp"
#include "core/base/text_case.hpp"

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

}  // namespace

std::string metric_chart_svg(const std::vector<const MetricRow*>& rows, bool before_after) {
  double lo = INFINITY;
  double hi = -INFINITY;
  auto take = [&](std::optional<double> v) {
    if (v && std::isfinite(*v)) {
      lo = std::min(lo, *v);
      hi = std::max(hi, *v);
    }
  };
  for (const MetricRow* r : rows) {
    take(r->expected);
    take(r->observed);
    take(threshold(*r));
  }
  const double height = kTop + kRowH * static_cast<double>(rows.size()) + 8;
  std::string out = fmt::format(
      "<svg class=\"chart\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "role=\"img\" font-family=\"sans-serif\" font-size=\"12\">\n",
      kWidth, height);
  if (!(lo <= hi)) {
    out += fmt::format("<text x=\"4\" y=\"16\" fill=\"#57606a\">no value to draw</text>\n</svg>\n");
    return out;
  }
  // Zoom on the interesting range so a 5 % drop is visible, but keep some room either side.
  const double span = std::max(hi - lo, std::abs(hi) * 0.02 + 1e-12);
  const bool non_negative = lo >= 0;
  lo -= span * 0.35;
  hi += span * 0.15;
  if (non_negative) lo = std::max(lo, 0.0);  // a bar of a rate never starts below zero
  auto x = [&](double v) { return kLabelW + (v - lo) / (hi - lo) * kPlotW; };
  out += fmt::format("<text x=\"{:.1f}\" y=\"12\" fill=\"#57606a\">{}</text>\n", kLabelW,
                     escape(report::value(lo)));
  out += fmt::format("<text x=\"{:.1f}\" y=\"12\" fill=\"#57606a\" text-anchor=\"end\">{}</text>\n",
                     kLabelW + kPlotW, escape(report::value(hi)));
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MetricRow& r = *rows[i];
    const double y = kTop + kRowH * static_cast<double>(i);
    const std::string label = r.gpu ? fmt::format("GPU {}", *r.gpu) : std::string("node");
    out += fmt::format("<text x=\"4\" y=\"{:.1f}\" fill=\"#24292f\">{}</text>\n", y + 18, escape(label));
    // Plot background, then the band of values that pass (expectation to the allowed drop).
    out +=
        fmt::format("<rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" fill=\"#f6f8fa\"/>\n",
                    kLabelW, y + 2, kPlotW, kRowH - 4);
    if (const auto t = threshold(r)) {
      const double a = x(std::min(*t, *r.expected));
      const double b = x(std::max(*t, *r.expected));
      out += fmt::format(
          "<rect class=\"band\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"{:.1f}\" "
          "fill=\"#dafbe1\">"
          "<title>passes from {} {}</title></rect>\n",
          a, y + 2, std::max(b - a, 1.0), kRowH - 4, escape(report::value(*t)), escape(r.unit));
    }
    const std::string gpu_attr = r.gpu ? std::to_string(*r.gpu) : std::string("node");
    if (before_after && r.expected) {
      out += fmt::format(
          "<rect class=\"bar before\" data-gpu=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
          "height=\"7\" fill=\"#8c959f\">"
          "<title>before: {} {}</title></rect>\n",
          gpu_attr, kLabelW, y + 5, std::max(x(*r.expected) - kLabelW, 1.0),
          escape(report::value(r.expected)), escape(r.unit));
    }
    if (r.observed) {
      const double bar_y = before_after ? y + 13 : y + 7;
      const double bar_h = before_after ? 12 : 16;
      out += fmt::format(
          "<rect class=\"bar {}\" data-gpu=\"{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" "
          "height=\"{:.0f}\" fill=\"{}\">"
          "<title>{}: {} {}</title></rect>\n",
          to_string(r.status), gpu_attr, kLabelW, bar_y, std::max(x(*r.observed) - kLabelW, 1.0), bar_h,
          status_color(r.status), before_after ? "after" : "observed", escape(report::value(r.observed)),
          escape(r.unit));
    }
    if (r.expected && !before_after) {
      const double ex = x(*r.expected);
      out += fmt::format(
          "<line class=\"expected\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
          "stroke=\"#24292f\" "
          "stroke-width=\"2\"><title>expected {3} {4}</title></line>\n",
          ex, y + 1, y + kRowH - 1, escape(report::value(r.expected)), escape(r.unit));
    }
    // The fail threshold on top of the bars: where each bar ends relative to it is the verdict.
    if (const auto t = threshold(r)) {
      out += fmt::format(
          "<line class=\"threshold\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\" "
          "stroke=\"#cf222e\" "
          "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"><title>fails beyond {3} {4}</title></line>\n",
          x(*t), y + 1, y + kRowH - 1, escape(report::value(*t)), escape(r.unit));
    }
    const std::string text = r.observed
                                 ? fmt::format("{} {}  {}  {}", report::value(r.observed), r.unit,
                                               report::delta(r.delta_pct), to_upper(to_string(r.status)))
                                 : fmt::format("no value  {}", to_upper(to_string(r.status)));
    out += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\"{}>{}</text>\n", kLabelW + kPlotW + 10,
                       y + 18, status_color(r.status),
                       r.status == Status::pass ? "" : " font-weight=\"bold\"", escape(text));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace gpuqual::html
