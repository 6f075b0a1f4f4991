#include "core/record/metric_summary.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "core/base/stats.hpp"

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

namespace {

bool agrees(double stored, double computed, double absolute) {
  const double scale = std::max(std::abs(stored), std::abs(computed));
  return std::abs(stored - computed) <= 1e-3 * scale + absolute;
}

}  // namespace

std::optional<SummaryMismatch> recompute_summary(Metric& m) {
  if (m.samples.empty()) return std::nullopt;
  const double median = stats::median_with_hint(m.samples, m.median);  // the stored one, usually right
  const double min = stats::min(m.samples);
  const double max = stats::max(m.samples);
  const double cv = stats::cv(m.samples);
  std::optional<SummaryMismatch> first;
  auto compare = [&](const char* field, double stored, double computed, double absolute) {
    if (first || agrees(stored, computed, absolute)) return;
    first = SummaryMismatch{
        field, fmt::format("{} {:g} disagrees with the samples (recomputed from the {} samples: {:g})", field,
                           stored, m.samples.size(), computed)};
  };
  compare("median", m.median, median, 1e-12);
  compare("min", m.min, min, 1e-12);
  compare("max", m.max, max, 1e-12);
  compare("cv", m.cv, cv, 5e-4);
  m.median = median;
  m.min = min;
  m.max = max;
  m.cv = cv;
  return first;
}

}  // namespace gpuqual
