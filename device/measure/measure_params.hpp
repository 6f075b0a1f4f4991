#pragma once
// The suite parameters every benchmark check accepts for its measurement loop, read strictly
// (an unknown or mistyped parameter is an InputError naming it):
//   target_cv (0.005), cv_window (10), min_samples (5), max_samples (100), warmup_s (0.05; the
//   dense-GEMM checks 1.0), min_sample_s,
//   measure_budget_s (per measurement; default: the check's budget shared out), seed (1).
#include <cstdint>
#include <optional>

#include "core/base/json_fields.hpp"
#include "device/measure/measure.hpp"

namespace gpuqual {

// Warm-up of a dense GEMM measurement (gemm, burnin): 50 ms is inside the boost/power transient
// of a dense GEMM (clocks and power settle over about a second on H100/H200),
// so the first samples would be taken at a clock the steady state does not hold.
inline constexpr double kDenseGemmWarmupS = 1.0;

struct CommonBenchParams {
  MeasureConfig measure;
  std::optional<double> measure_budget_s;  // when the suite fixes it per measurement
  std::uint64_t seed = 1;
};

// Reads the common keys from `params` (the caller reads its own keys and calls finish()).
CommonBenchParams read_common_bench_params(JsonObject& params, MeasureConfig defaults);

// Each of `measurements` measurements gets `check_budget_s` x 0.7 / measurements (the rest is
// set-up and verification), at least 0.3 s; or the suite's fixed `measure_budget_s`.
double share_budget(double check_budget_s, int measurements, std::optional<double> fixed);

}  // namespace gpuqual
