#include "core/judge/compare_rules.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <utility>

#include "core/record/finding_status.hpp"
#include "core/record/record_lookup.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/tolerance.hpp"

namespace gpuqual {

std::string scope_name(const std::optional<int>& gpu) { return gpu ? fmt::format("gpu {}", *gpu) : "node"; }

double relative_drop(double expected, double observed, Direction direction) {
  const double change = (observed - expected) / expected;
  return direction == Direction::higher ? -change : change;
}

double allowed_drop(const MetricExpectation& e, double observed_cv, std::size_t n) {
  if (!e.noise_cv) return e.tolerance;
  // The median of n samples scatters sqrt(pi/2) times more than the mean would.
  const double se =
      n > 0 ? std::sqrt(std::numbers::pi / 2) * observed_cv / std::sqrt(static_cast<double>(n)) : 0.0;
  const double sigma = std::hypot(*e.noise_cv, se);
  return std::min(2 * e.tolerance, std::max(e.tolerance, 3 * sigma));
}

int distinct_precision(double a, double b) {
  for (int digits = 1; digits < 6; ++digits) {
    if (fmt::format("{:.{}f}", a, digits) != fmt::format("{:.{}f}", b, digits)) return digits;
  }
  return 6;
}

std::string delta_vs_allowed(const MetricRow& m) {
  const bool higher = m.direction == Direction::higher;
  const int digits = distinct_precision(std::abs(*m.delta_pct), m.allowed_drop_pct);
  return fmt::format("{:+.{}f}% {} {}{:.{}f}%", *m.delta_pct, digits, higher ? "<" : ">", higher ? "-" : "+",
                     m.allowed_drop_pct, digits);
}

MetricRow recorded_metric_row(const std::string& check, const Metric& m) {
  MetricRow row;
  row.check = check;
  row.metric = m.name;
  row.gpu = m.gpu;
  row.unit = m.unit;
  row.direction = m.direction;
  row.observed = m.median;
  row.mig_device = m.mig_device;
  return row;
}

MetricRow judge_metric(const std::string& check, const Metric& m, const MetricExpectation& e) {
  MetricRow row = recorded_metric_row(check, m);
  row.direction = e.direction;
  row.expected = e.expected;
  row.allowed_drop_pct = e.tolerance * 100;
  if (m.unit != e.unit) {
    row.status = Status::error;
    row.reason = fmt::format("unit {} in the record, {} in the baseline", m.unit, e.unit);
    return row;
  }
  if (m.direction != e.direction) {
    row.status = Status::error;
    row.reason = fmt::format("direction {} in the record, {} in the baseline", to_string(m.direction),
                             to_string(e.direction));
    return row;
  }
  if (m.n() == 0) {
    row.status = Status::error;
    row.reason = "metric has no samples";
    return row;
  }
  // The readers reject non-finite numbers; a record built in memory (or a baseline with an
  // expected value of 0) must still never pass by a comparison with NaN.
  if (!std::isfinite(m.median) || !std::isfinite(e.expected) || !(e.expected > 0) || !std::isfinite(m.cv)) {
    row.status = Status::error;
    row.reason = fmt::format("cannot judge median {:g} against expected {:g}", m.median, e.expected);
    return row;
  }
  const double drop = relative_drop(e.expected, m.median, e.direction);
  const double allowed = allowed_drop(e, m.cv, m.n());
  row.delta_pct = (m.median - e.expected) / e.expected * 100;
  row.allowed_drop_pct = allowed * 100;
  const char* sign = e.direction == Direction::higher ? "-" : "+";
  // Shown with as many decimals as it takes for the two numbers to read differently.
  auto pct = [&](double bound) {
    const int digits = distinct_precision(std::abs(*row.delta_pct), bound * 100);
    return std::pair{fmt::format("{:+.{}f}%", *row.delta_pct, digits),
                     fmt::format("{}{:.{}f}%", sign, bound * 100, digits)};
  };
  if (beyond_allowed(drop, allowed)) {
    row.status = Status::fail;
    const auto [delta, bound] = pct(allowed);
    row.reason =
        fmt::format("{} vs expected {:g} {}, beyond the allowed {}", delta, e.expected, e.unit, bound);
  } else if (beyond_allowed(drop, e.tolerance)) {
    row.status = Status::warn;
    const auto [delta, bound] = pct(e.tolerance);
    row.reason = fmt::format("{} is beyond the tolerance {} but within the noise allowance {}{:.1f}%", delta,
                             bound, sign, allowed * 100);
  } else if (e.warn_tolerance && beyond_allowed(drop, *e.warn_tolerance)) {
    row.status = Status::warn;
    const auto [delta, bound] = pct(*e.warn_tolerance);
    row.reason = fmt::format("{} is beyond the warn tolerance {}", delta, bound);
  } else {
    row.status = Status::pass;
  }
  return row;
}

void not_green_when_unmeasured(FindingRow& row, const CheckResult& check) {
  if (row.status != Status::pass) return;
  const auto [status, reason] = recorded_status(check, row.finding.gpu);
  if (status != Status::skip && status != Status::error) return;
  row.status = status;
  row.reason = fmt::format("check {} {}: {}; {}", check.name, to_string(status), reason, row.reason);
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

FindingRow judge_finding(const std::string& check, const Finding& recorded, const Baseline* baseline) {
  // The severity is gpuqual's table's, or the record's when it is higher (docs/health.md).
  const Finding finding = with_table_severity(judging_severity_table(), recorded);
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
      row.reason = fmt::format("{:g} {} the limit {:g}{}", value,
                               value > *limit->max_value ? "over" : "within", *limit->max_value, which);
    } else {
      row.status = limit->status;
      row.reason = fmt::format("any occurrence is {}{}", to_string(limit->status), which);
    }
  } else {
    row.status = status_of(finding.severity);
    row.reason = fmt::format(
        "severity {}{}, no limit in the baseline", to_string(finding.severity),
        finding.severity == recorded.severity
            ? ""
            : fmt::format(" (gpuqual's table; the record says {})", to_string(recorded.severity)));
  }
  if (!finding.detail.empty()) row.reason += ": " + finding.detail;
  return row;
}

}  // namespace gpuqual
