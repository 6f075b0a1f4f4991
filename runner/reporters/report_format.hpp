#pragma once
// Small formatting helpers shared by the reporters, so every format shows numbers, GPUs and
// deltas the same way.
#include <optional>
#include <string>

#include "core/verdict.hpp"

namespace gpuqual::report {

std::string value(const std::optional<double>& v);        // "770", "4812.5", "-" when absent
std::string gpu(const std::optional<int>& gpu);           // "0" or "node"
std::string delta(const std::optional<double>& pct);      // "+0.2%", "-" when absent
std::string allowed(const MetricRow& row);                // "-5.0%" (higher is better) or "+5.0%"

}  // namespace gpuqual::report
