#include "runner/html/html_burnin.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/rules/telemetry_summary.hpp"
#include "runner/html/html_escape.hpp"
#include "runner/reporters/report_format.hpp"

namespace gpuqual::html {

namespace fs = std::filesystem;

namespace {

const CheckResult* burnin_check(const RunRecord& r) {
  for (const auto& c : r.checks)
    if (c.name == "burnin") return &c;
  return nullptr;
}

template <typename T>
void decimate(std::vector<T>& v, std::size_t max_points) {
  if (v.size() <= max_points || max_points < 2) return;
  std::vector<T> out;
  out.reserve(max_points);
  for (std::size_t i = 0; i < max_points; ++i) out.push_back(v[i * (v.size() - 1) / (max_points - 1)]);
  v.swap(out);
}

// Distinct, print-safe colours for up to 8 GPUs, then repeating.
const char* gpu_color(int gpu) {
  static const char* kColors[] = {"#0969da", "#bc4c00", "#1a7f37", "#8250df",
                                  "#bf3989", "#116329", "#953800", "#57606a"};
  return kColors[static_cast<std::size_t>(gpu < 0 ? 0 : gpu) % 8];
}

}  // namespace

BurninTelemetry load_burnin_telemetry(const RunRecord& record, const std::string& record_path,
                                      std::size_t max_points) {
  BurninTelemetry t;
  const CheckResult* c = burnin_check(record);
  if (!c) return t;
  const auto it = c->attributes.find("burnin.telemetry_file");
  if (it == c->attributes.end() || it->second.empty()) {
    t.note = "the burnin check wrote no telemetry side file";
    return t;
  }
  const fs::path named(it->second);
  const fs::path record_dir = fs::path(record_path).parent_path();
  std::vector<fs::path> candidates{named};
  if (named.is_relative()) candidates.push_back(record_dir / named);
  candidates.push_back(record_dir / named.filename());
  for (const auto& p : candidates) {
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) {
      t.path = p.string();
      break;
    }
  }
  if (t.path.empty()) {
    t.note = fmt::format("telemetry side file {} not found (copy it next to the record to see the series)",
                         it->second);
    return t;
  }
  std::ifstream in(t.path);
  std::string line;
  std::size_t bad = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("t_s") || !j["t_s"].is_number() ||
        !j.contains("gpu") || !j["gpu"].is_number_integer()) {
      ++bad;
      continue;
    }
    const double ts = j["t_s"].get<double>();
    const int gpu = j["gpu"].get<int>();
    auto take = [&](const char* key, std::map<int, Series>& into) {
      if (j.contains(key) && j[key].is_number()) into[gpu].emplace_back(ts, j[key].get<double>());
    };
    take("temperature_c", t.temperature_c);
    take("power_w", t.power_w);
    take("sm_clock_mhz", t.sm_clock_mhz);
    if (j.contains("clock_reasons") && j["clock_reasons"].is_number_unsigned())
      t.throttled[gpu].emplace_back(ts, (j["clock_reasons"].get<std::uint64_t>() & kThrottleMask) != 0);
  }
  for (auto* m : {&t.temperature_c, &t.power_w, &t.sm_clock_mhz})
    for (auto& [gpu, s] : *m) decimate(s, max_points);
  for (auto& [gpu, s] : t.throttled) decimate(s, max_points * 2);
  if (bad > 0) t.note = fmt::format("{} line(s) of {} did not parse and were skipped", bad, t.path);
  return t;
}

namespace {

// One line chart: a polyline per GPU, min/max labels, a legend; `bands` shades time spans
// (throttling); `x_unit` labels the ends of the x axis ("s", or "window" for the rate series).
std::string line_chart_svg(const std::string& title, const std::string& unit,
                           const std::map<int, Series>& series,
                           const std::map<int, std::vector<std::pair<double, bool>>>* bands = nullptr,
                           const std::string& x_unit = "s") {
  constexpr double kW = 900, kH = 170, kL = 60, kR = 110, kT = 22, kB = 22;
  double t0 = INFINITY, t1 = -INFINITY, lo = INFINITY, hi = -INFINITY;
  for (const auto& [gpu, s] : series)
    for (const auto& [t, v] : s) {
      if (!std::isfinite(t) || !std::isfinite(v)) continue;
      t0 = std::min(t0, t);
      t1 = std::max(t1, t);
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  std::string out = fmt::format(
      "<svg class=\"timeseries\" data-series=\"{0}\" width=\"{1}\" height=\"{2}\" viewBox=\"0 0 {1} {2}\" "
      "role=\"img\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n<text x=\"0\" y=\"14\" font-weight=\"bold\" "
      "fill=\"#24292f\">{0} "
      "<tspan fill=\"#57606a\" font-weight=\"normal\">{3}</tspan></text>\n",
      escape(title), kW, kH, escape(unit));
  if (!(t0 <= t1)) {
    out += "<text x=\"60\" y=\"60\" fill=\"#57606a\">no samples</text>\n</svg>\n";
    return out;
  }
  if (t1 == t0) t1 = t0 + 1;
  if (hi == lo) {
    hi += std::max(std::abs(hi) * 0.01, 1.0);
    lo -= std::max(std::abs(lo) * 0.01, 1.0);
  }
  const double pw = kW - kL - kR, ph = kH - kT - kB;
  auto x = [&](double t) { return kL + (t - t0) / (t1 - t0) * pw; };
  auto y = [&](double v) { return kT + (hi - v) / (hi - lo) * ph; };
  out +=
      fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"#f6f8fa\"/>\n", kL, kT, pw, ph);
  if (bands) {
    // Time spans in which a GPU reported a slowdown reason: red shading behind the lines.
    for (const auto& [gpu, marks] : *bands) {
      for (std::size_t i = 0; i < marks.size(); ++i) {
        if (!marks[i].second) continue;
        const double a = marks[i].first;
        const double b = i + 1 < marks.size() ? marks[i + 1].first : a + 1;
        out += fmt::format(
            "<rect class=\"throttle\" data-gpu=\"{}\" x=\"{:.1f}\" y=\"{}\" width=\"{:.1f}\" height=\"{}\" "
            "fill=\"#ffebe9\"/>\n",
            gpu, x(std::clamp(a, t0, t1)), kT,
            std::max(x(std::clamp(b, t0, t1)) - x(std::clamp(a, t0, t1)), 1.0), ph);
      }
    }
  }
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#57606a\">{}</text>\n", kL - 4,
                     kT + 10, escape(report::value(hi)));
  out += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\" fill=\"#57606a\">{}</text>\n", kL - 4,
                     kT + ph, escape(report::value(lo)));
  out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"#57606a\">{}</text>\n", kL, kH - 6,
                     escape(fmt::format("{:.0f} {}", t0, x_unit)));
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\" fill=\"#57606a\">{}</text>\n", kL + pw,
                     kH - 6, escape(fmt::format("{:.0f} {}", t1, x_unit)));
  int legend = 0;
  for (const auto& [gpu, s] : series) {
    std::string points;
    for (const auto& [t, v] : s)
      if (std::isfinite(t) && std::isfinite(v)) points += fmt::format("{:.1f},{:.1f} ", x(t), y(v));
    out += fmt::format(
        "<polyline class=\"series\" data-gpu=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" "
        "points=\"{}\"/>\n",
        gpu, gpu_color(gpu), points);
    out += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">GPU {}</text>\n", kL + pw + 10,
                       kT + 12 + 15 * legend++, gpu_color(gpu), gpu);
  }
  out += "</svg>\n";
  return out;
}

}  // namespace

std::string burnin_section(const RunRecord& record, const BurninTelemetry* telemetry) {
  const CheckResult* c = burnin_check(record);
  if (!c) return "";
  std::string out = "<h2 id=\"burnin\">Burn-in</h2>\n";
  // The rate series: each GPU's burnin.<prec>.tflops samples are the GEMM-only windows in order.
  std::map<int, Series> rate;
  std::string rate_name;
  for (const auto& m : c->metrics) {
    if (!m.gpu || m.name.rfind("burnin.", 0) != 0 || m.name.size() < 7 ||
        m.name.substr(m.name.size() - 7) != ".tflops")
      continue;
    rate_name = m.name;
    Series s;
    for (std::size_t i = 0; i < m.samples.size(); ++i) s.emplace_back(static_cast<double>(i), m.samples[i]);
    rate[*m.gpu] = std::move(s);
  }
  if (!rate.empty()) {
    out += line_chart_svg(rate_name + " (per window)", "TFLOP/s", rate, nullptr, "window");
  } else {
    out += "<p class=\"muted\">The burnin check recorded no TFLOP/s windows.</p>\n";
  }
  if (telemetry && !telemetry->path.empty()) {
    out += fmt::format(
        "<p class=\"muted\">Telemetry from {}; red shading: a slowdown reason (thermal, power brake, HW, "
        "board, reliability) was reported.</p>\n",
        escape(telemetry->path));
    out += line_chart_svg("temperature",
                          "\xC2\xB0"
                          "C",
                          telemetry->temperature_c, &telemetry->throttled);
    out += line_chart_svg("SM clock", "MHz", telemetry->sm_clock_mhz, &telemetry->throttled);
    out += line_chart_svg("power", "W", telemetry->power_w, &telemetry->throttled);
  }
  if (telemetry && !telemetry->note.empty())
    out += fmt::format("<p class=\"muted\">{}</p>\n", escape(telemetry->note));
  return out;
}

}  // namespace gpuqual::html
