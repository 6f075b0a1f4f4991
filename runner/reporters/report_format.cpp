#include "runner/reporters/report_format.hpp"

#include <fmt/format.h>

#include <cctype>

#include "core/text_case.hpp"

namespace gpuqual::report {

// Five significant digits: 771.23 TFLOP/s, 4812.5 GB/s, 52.306 GB/s; enough to see a 0.1 % change.
std::string value(const std::optional<double>& v) { return v ? fmt::format("{:.5g}", *v) : "-"; }

std::string gpu(const std::optional<int>& g) { return g ? std::to_string(*g) : "node"; }

std::string delta(const std::optional<double>& pct) { return pct ? fmt::format("{:+.1f}%", *pct) : "-"; }

std::string allowed(const MetricRow& row) {
  if (!row.expected) return "-";
  return fmt::format("{}{:.1f}%", row.direction == Direction::higher ? "-" : "+", row.allowed_drop_pct);
}

}  // namespace gpuqual::report
