#include "core/compare_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>

namespace gpuqual {

std::string scope_name(const std::optional<int>& gpu) { return gpu ? fmt::format("gpu {}", *gpu) : "node"; }

double relative_drop(double expected, double observed, Direction direction) {
  const double change = (observed - expected) / expected;
  return direction == Direction::higher ? -change : change;
}

double allowed_drop(const MetricExpectation& e, double observed_cv, std::size_t n) {
  if (!e.noise_cv) return e.tolerance;
  // The median of n samples scatters sqrt(pi/2) times more than the mean would.
  const double se = n > 0 ? std::sqrt(std::numbers::pi / 2) * observed_cv / std::sqrt(static_cast<double>(n)) : 0.0;
  const double sigma = std::hypot(*e.noise_cv, se);
  return std::min(2 * e.tolerance, std::max(e.tolerance, 3 * sigma));
}

MetricRow judge_metric(const std::string& check, const Metric& m, const MetricExpectation& e) {
  MetricRow row;
  row.check = check;
  row.metric = m.name;
  row.gpu = m.gpu;
  row.unit = m.unit;
  row.direction = e.direction;
  row.expected = e.expected;
  row.observed = m.median;
  row.allowed_drop_pct = e.tolerance * 100;
  if (m.unit != e.unit) {
    row.status = Status::error;
    row.reason = fmt::format("unit {} in the record, {} in the baseline", m.unit, e.unit);
    return row;
  }
  if (m.direction != e.direction) {
    row.status = Status::error;
    row.reason = fmt::format("direction {} in the record, {} in the baseline", to_string(m.direction), to_string(e.direction));
    return row;
  }
  if (m.n() == 0) {
    row.status = Status::error;
    row.reason = "metric has no samples";
    return row;
  }
  const double drop = relative_drop(e.expected, m.median, e.direction);
  const double allowed = allowed_drop(e, m.cv, m.n());
  row.delta_pct = (m.median - e.expected) / e.expected * 100;
  row.allowed_drop_pct = allowed * 100;
  const char* sign = e.direction == Direction::higher ? "-" : "+";
  if (drop > allowed) {
    row.status = Status::fail;
    row.reason = fmt::format("{:+.1f}% vs expected {:g} {}, beyond the allowed {}{:.1f}%", *row.delta_pct, e.expected,
                             e.unit, sign, allowed * 100);
  } else if (drop > e.tolerance) {
    row.status = Status::warn;
    row.reason = fmt::format("{:+.1f}% is beyond the tolerance {}{:.1f}% but within the noise allowance {}{:.1f}%",
                             *row.delta_pct, sign, e.tolerance * 100, sign, allowed * 100);
  } else if (e.warn_tolerance && drop > *e.warn_tolerance) {
    row.status = Status::warn;
    row.reason = fmt::format("{:+.1f}% is beyond the warn tolerance {}{:.1f}%", *row.delta_pct, sign, *e.warn_tolerance * 100);
  } else {
    row.status = Status::pass;
  }
  return row;
}

const FindingLimit* find_limit(const Baseline* baseline, const std::string& code) {
  if (!baseline) return nullptr;
  const FindingLimit* best = nullptr;
  std::size_t best_len = 0;
  for (const auto& limit : baseline->finding_limits) {
    if (limit.code == code) return &limit;
    if (limit.code.size() >= 2 && limit.code.ends_with(".*")) {
      const std::string prefix = limit.code.substr(0, limit.code.size() - 1);  // keeps the '.'
      if (code.starts_with(prefix) && prefix.size() > best_len) {
        best = &limit;
        best_len = prefix.size();
      }
    }
  }
  return best;
}

FindingRow judge_finding(const std::string& check, const Finding& finding, const Baseline* baseline) {
  FindingRow row;
  row.check = check;
  row.finding = finding;
  if (const FindingLimit* limit = find_limit(baseline, finding.code)) {
    if (row.finding.action.empty()) row.finding.action = limit->action;
    // Name the limit only when it is a prefix: the finding's own code is shown next to the reason.
    const std::string which = limit->code == finding.code ? "" : fmt::format(" (limit {})", limit->code);
    if (limit->max_value) {
      // A finding without a value is one occurrence.
      const double value = finding.value.value_or(1);
      row.status = value > *limit->max_value ? limit->status : Status::pass;
      row.reason = fmt::format("{:g} {} the limit {:g}{}", value, value > *limit->max_value ? "over" : "within",
                               *limit->max_value, which);
    } else {
      row.status = limit->status;
      row.reason = fmt::format("any occurrence is {}{}", to_string(limit->status), which);
    }
  } else {
    switch (finding.severity) {
      case Severity::fail: row.status = Status::fail; break;
      case Severity::warn: row.status = Status::warn; break;
      case Severity::info: row.status = Status::pass; break;
    }
    row.reason = fmt::format("severity {}, no limit in the baseline", to_string(finding.severity));
  }
  if (!finding.detail.empty()) row.reason += ": " + finding.detail;
  return row;
}

}  // namespace gpuqual
