#include "core/metric_summary.hpp"

#include "core/stats.hpp"

namespace gpuqual {

Metric summarize_metric(std::string name, std::string unit, Direction direction, std::optional<int> gpu,
                        std::vector<double> samples, int throttled_samples) {
  Metric m;
  m.name = std::move(name);
  m.unit = std::move(unit);
  m.direction = direction;
  m.gpu = gpu;
  m.median = stats::median(samples);
  m.cv = stats::cv(samples);
  m.min = stats::min(samples);
  m.max = stats::max(samples);
  m.throttled_samples = throttled_samples;
  m.samples = std::move(samples);
  return m;
}

}  // namespace gpuqual
