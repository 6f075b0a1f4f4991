#pragma once
// Builds a Metric from raw samples: median, CV, min and max come from stats.hpp so every check
// summarises the same way.
#include <optional>
#include <string>
#include <vector>

#include "core/record.hpp"

namespace gpuqual {

Metric summarize_metric(std::string name, std::string unit, Direction direction, std::optional<int> gpu,
                        std::vector<double> samples, int throttled_samples = 0);

}  // namespace gpuqual
