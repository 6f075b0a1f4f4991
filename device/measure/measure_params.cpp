#include "device/measure/measure_params.hpp"

#include <algorithm>

namespace gpuqual {

CommonBenchParams read_common_bench_params(JsonObject& params, MeasureConfig defaults) {
  CommonBenchParams p;
  p.measure = defaults;
  if (auto v = params.opt_number("target_cv", 0.0, 1.0)) p.measure.target_cv = *v;
  if (auto v = params.opt_integer("min_samples", 1, 100000)) p.measure.min_samples = static_cast<int>(*v);
  if (auto v = params.opt_integer("max_samples", 1, 100000)) p.measure.max_samples = static_cast<int>(*v);
  if (p.measure.max_samples < p.measure.min_samples)
    params.fail("max_samples", "must be at least min_samples");
  if (auto v = params.opt_number("warmup_s", 0.0, 600.0)) p.measure.warmup_s = *v;
  if (auto v = params.opt_integer("cv_window", 0, 100000)) p.measure.cv_window = static_cast<int>(*v);
  if (auto v = params.opt_number("min_sample_s", 0.0, 60.0)) p.measure.min_sample_s = *v;
  p.measure_budget_s = params.opt_number("measure_budget_s", 0.01, 86400.0);
  if (auto v = params.opt_integer("seed", 0)) p.seed = static_cast<std::uint64_t>(*v);
  return p;
}

double share_budget(double check_budget_s, int measurements, std::optional<double> fixed) {
  if (fixed) return *fixed;
  return std::max(0.3, check_budget_s * 0.7 / std::max(1, measurements));
}

}  // namespace gpuqual
