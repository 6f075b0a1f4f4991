#include "core/judge/compare_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <vector>

#include "core/base/plural.hpp"
#include "core/base/text_case.hpp"
#include "core/base/text_width.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/record/hardware_class.hpp"

namespace gpuqual {

namespace {

// "gemm.bf16.tflops gpu 3 -7.1% < -5.0%" for a judged row, "hbm.triad.gbps gpu 1: <reason>" otherwise.
std::string describe(const MetricRow& m) {
  if (m.delta_pct && (m.status == Status::fail || m.status == Status::warn)) {
    if (m.status == Status::fail) {
      return fmt::format("{} {} {}", m.metric, scope_name(m.gpu), delta_vs_allowed(m));
    }
    return fmt::format("{} {} {:+.1f}%", m.metric, scope_name(m.gpu), *m.delta_pct);
  }
  return fmt::format("{} {}: {}", m.metric, scope_name(m.gpu), m.reason);
}

std::string metrics_part(const Verdict& v) {
  std::size_t total = 0, passed = 0;
  const MetricRow* first[5] = {};
  std::size_t count[5] = {};
  for (const auto& m : v.metrics) {
    if (m.status == Status::skip) continue;  // not named by the baseline: shown, not judged
    ++total;
    const auto k = static_cast<std::size_t>(m.status);
    if (!first[k]) first[k] = &m;
    ++count[k];
    if (m.status == Status::pass) ++passed;
  }
  auto part = [&](Status s, const char* verb) {
    const auto k = static_cast<std::size_t>(s);
    return fmt::format("{} of {} metrics {} ({})", count[k], total, verb, describe(*first[k]));
  };
  if (count[static_cast<std::size_t>(Status::fail)]) return part(Status::fail, "failed");
  if (count[static_cast<std::size_t>(Status::error)]) return part(Status::error, "not judged");
  if (count[static_cast<std::size_t>(Status::warn)]) return part(Status::warn, "warned");
  return fmt::format("{} of {} metrics passed", passed, total);
}

std::string findings_part(const Verdict& v) {
  const FindingRow* first_fail = nullptr;
  const FindingRow* first_warn = nullptr;
  std::size_t fails = 0, warns = 0;
  for (const auto& f : v.findings) {
    if (f.status == Status::fail && !fails++) first_fail = &f;
    if (f.status == Status::warn && !warns++) first_warn = &f;
  }
  const std::size_t n = v.findings.size();
  if (first_fail) {
    return fmt::format("{} of {} failed ({} {})", fails, plural(n, "finding"), first_fail->finding.code,
                       scope_name(first_fail->finding.gpu));
  }
  if (first_warn) {
    return fmt::format("{} of {} warned ({} {})", warns, plural(n, "finding"), first_warn->finding.code,
                       scope_name(first_warn->finding.gpu));
  }
  return plural(n, "finding");
}

// Every check result that did not pass and decides (fail, error, a skip that could not measure),
// counted in full so the number agrees with the table, naming first one that no metric or finding
// row of the same check, GPU and status explains (a check that crashed, health without NVML).
std::string checks_part(const Verdict& v) {
  std::vector<const CheckRow*> bad;
  const CheckRow* unexplained = nullptr;
  for (const auto& c : v.checks) {
    const bool decides = c.status == Status::fail || c.status == Status::error ||
                         (c.status == Status::skip && !c.skip_accepted);
    if (!decides) continue;
    bad.push_back(&c);
    const bool explained = std::any_of(v.metrics.begin(), v.metrics.end(),
                                       [&](const MetricRow& m) {
                                         return m.check == c.check && m.gpu == c.gpu && m.status == c.status;
                                       }) ||
                           std::any_of(v.findings.begin(), v.findings.end(), [&](const FindingRow& f) {
                             return f.check == c.check && f.finding.gpu == c.gpu && f.status == c.status;
                           });
    if (!explained && !unexplained) unexplained = &c;
  }
  // Every bad row explained by a metric or finding row: the metrics and findings parts say it.
  if (!unexplained) return "";
  const CheckRow& c = *unexplained;
  const std::string what =
      c.status == Status::skip
          ? fmt::format("{}{} skipped: {}", c.check, c.gpu ? " " + scope_name(c.gpu) : "", c.reason)
          : fmt::format("{} {} {}: {}", c.check, scope_name(c.gpu), to_string(c.status), c.reason);
  return fmt::format("{} of {} not passed ({})", bad.size(), plural(v.checks.size(), "check result"), what);
}

// The parenthesized details at the top level of `line`: (position of '(', of its ')').
std::vector<std::pair<std::size_t, std::size_t>> top_level_groups(std::string_view line) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  std::size_t depth = 0, open = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (line[i] == '(' && depth++ == 0) open = i;
    if (line[i] == ')' && depth > 0 && --depth == 0) out.emplace_back(open, i);
  }
  return out;
}

}  // namespace

std::string fit_summary(std::string line, std::size_t width, const SharedCauses& causes) {
  while (display_width(line) > width) {
    // The widest detail that holds a cause the table says above it (and JSON holds whole).
    std::optional<std::pair<std::size_t, std::size_t>> widest;
    for (const auto& g : top_level_groups(line)) {
      const std::string_view detail = std::string_view(line).substr(g.first, g.second - g.first + 1);
      if (causes.refer(detail) == detail) continue;  // says no shared cause: it stays
      if (!widest || g.second - g.first > widest->second - widest->first) widest = g;
    }
    if (!widest) break;
    const std::size_t from =
        widest->first > 0 && line[widest->first - 1] == ' ' ? widest->first - 1 : widest->first;
    line.erase(from, widest->second + 1 - from);
  }
  return line;
}

std::string compare_summary(const Verdict& v, bool had_baseline) {
  std::vector<std::string> parts;
  // The class is named at the head of the line already: said twice, a GPU-less node's summary
  // would not fit a terminal line (docs/output-formats.md, "Width").
  if (!had_baseline) parts.push_back("no baseline");
  if (had_baseline) parts.push_back(metrics_part(v));
  parts.push_back(findings_part(v));
  if (std::find(v.reasons.begin(), v.reasons.end(), kFloorNote) != v.reasons.end()) {
    parts.push_back("against datasheet floors (catches broken, not slow)");
  }
  if (class_overrides_noted(v.reasons)) parts.push_back("class is an override (--class)");
  if (v.outcome != Outcome::pass && v.outcome != Outcome::warn) {
    const bool nothing_measured = !v.reasons.empty() && v.reasons.front().starts_with("nothing was measured");
    if (std::string c = checks_part(v); !c.empty()) {
      if (nothing_measured) parts.push_back(v.reasons.front());
      parts.push_back(c);
    } else if (had_baseline && parts.front().ends_with("metrics passed") && !v.reasons.empty() &&
               parts[1].find(" failed (") == std::string::npos) {
      parts.push_back(v.reasons.front());  // e.g. "nothing was measured"
    }
  }
  if (v.strict && v.outcome == Outcome::fail) {
    const bool only_warnings =
        std::none_of(v.metrics.begin(), v.metrics.end(), [](auto& m) { return m.status == Status::fail; }) &&
        std::none_of(v.findings.begin(), v.findings.end(),
                     [](auto& f) { return f.status == Status::fail; }) &&
        std::none_of(v.checks.begin(), v.checks.end(), [](auto& c) { return c.status == Status::fail; });
    if (only_warnings) parts.push_back("warnings fail with --strict");
  }
  return node_summary_line("gpuqual", v, fmt::format("{}", fmt::join(parts, ", ")));
}

std::string node_summary_line(std::string_view who, const Verdict& v, std::string_view details) {
  std::string line = fmt::format("{}: {} {} {}: {}", who, to_upper(to_string(v.outcome)),
                                 v.hostname.empty() ? "(no hostname)" : v.hostname,
                                 v.hardware_class.empty() ? "unknown" : v.hardware_class, details);
  for (char& c : line) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return line;
}

}  // namespace gpuqual
