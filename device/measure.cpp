#include "device/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/metric_summary.hpp"
#include "core/stats.hpp"

namespace gpuqual {

namespace {

double steady_now_s() {
  using clock = std::chrono::steady_clock;
  return std::chrono::duration<double>(clock::now().time_since_epoch()).count();
}

double checked_time(SampleTimer& timer, int reps) {
  const double t = timer.time_reps(reps);
  if (!std::isfinite(t) || t <= 0) {
    throw std::runtime_error("sample timer returned " + std::to_string(t) + " s for " + std::to_string(reps) +
                             " runs (the operation did not run, or the timer is broken)");
  }
  return t;
}

void add_reasons(std::set<std::string>& seen, const std::string& reasons) {
  std::stringstream in(reasons);
  for (std::string r; std::getline(in, r, ',');) {
    if (!r.empty()) seen.insert(r);
  }
}

}  // namespace

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::converged: return "converged";
    case StopReason::budget: return "budget";
    case StopReason::max_samples: return "max_samples";
    case StopReason::stop_requested: return "stop_requested";
  }
  return "unknown";
}

std::span<const double> stop_window(const std::vector<double>& samples, int window) {
  const std::span<const double> all(samples);
  if (window <= 0 || samples.size() <= static_cast<std::size_t>(window)) return all;
  return all.last(static_cast<std::size_t>(window));
}

MeasureResult measure(SampleTimer& timer, const MeasureConfig& config, const MeasureHooks& hooks) {
  if (config.min_samples < 1 || config.cv_window < 0 || config.max_samples < config.min_samples || config.max_reps < 1 ||
      !(config.target_cv >= 0) || !(config.budget_s > 0)) {
    throw std::invalid_argument("measure: inconsistent configuration (min/max samples, reps, CV target or budget)");
  }
  const auto now = hooks.now_s ? hooks.now_s : std::function<double()>(steady_now_s);
  const auto stopping = [&] { return hooks.should_stop && hooks.should_stop(); };
  const double start = now();
  MeasureResult result;
  result.min_samples = config.min_samples;
  result.clock_probed = static_cast<bool>(hooks.clock_probe);

  // Warm-up: doubling batches until both the run count and the warm time are reached (or half
  // the budget is gone). The last batch calibrates the time of one run.
  double per_op = 0, warm_time = 0;
  for (int reps = 1;; reps = std::min(reps * 2, config.max_reps)) {
    const double t = checked_time(timer, reps);
    result.warmup_runs += reps;
    warm_time += t;
    per_op = t / reps;
    if (result.warmup_runs >= config.warmup_runs && warm_time >= config.warmup_s) break;
    if (now() - start >= config.budget_s / 2 || stopping()) break;
  }
  result.reps_per_sample =
      static_cast<int>(std::clamp(std::ceil(config.min_sample_s / per_op), 1.0, static_cast<double>(config.max_reps)));

  std::set<std::string> reasons;
  for (;;) {
    if (stopping()) {
      result.stop = StopReason::stop_requested;
      break;
    }
    ClockReading before, after;
    if (hooks.clock_probe) before = hooks.clock_probe();
    const double t = checked_time(timer, result.reps_per_sample);
    if (hooks.clock_probe) after = hooks.clock_probe();

    result.seconds_per_op.push_back(t / result.reps_per_sample);
    const bool throttled = before.throttled || after.throttled;
    result.throttled.push_back(throttled);
    if (throttled) ++result.throttled_samples;
    add_reasons(reasons, before.reasons);
    add_reasons(reasons, after.reasons);
    // The clock after the sample is the one the work ran at (the one before may be idle-low).
    if (after.sm_clock_mhz) result.sm_clock_mhz.push_back(*after.sm_clock_mhz);

    const int n = static_cast<int>(result.seconds_per_op.size());
    result.cv = stats::cv(stop_window(result.seconds_per_op, config.cv_window));
    if (n >= config.min_samples && result.cv <= config.target_cv) {
      result.stop = StopReason::converged;
      break;
    }
    if (n >= config.max_samples) {
      result.stop = StopReason::max_samples;
      break;
    }
    if (now() - start >= config.budget_s) {
      result.stop = StopReason::budget;
      break;
    }
  }
  for (const auto& r : reasons) {
    result.throttle_reasons += (result.throttle_reasons.empty() ? "" : ",") + r;
  }
  return result;
}

std::vector<double> rates(const MeasureResult& result, double work_per_op, double unit_scale) {
  std::vector<double> out;
  out.reserve(result.seconds_per_op.size());
  for (double s : result.seconds_per_op) out.push_back(work_per_op / s / unit_scale);
  return out;
}

Metric rate_metric(std::string name, std::string unit, std::optional<int> gpu, const MeasureResult& result,
                   double work_per_op, double unit_scale) {
  return summarize_metric(std::move(name), std::move(unit), Direction::higher, gpu,
                          rates(result, work_per_op, unit_scale), result.throttled_samples);
}

Status measurement_status(const MeasureResult& result, const MeasureConfig& config, std::string* reason) {
  reason->clear();
  const auto n = result.seconds_per_op.size();
  if (n == 0) {
    *reason = "no sample was taken";
    return Status::error;
  }
  std::ostringstream why;
  Status status = Status::pass;
  if (result.throttled_samples > config.max_throttled_fraction * static_cast<double>(n)) {
    why << result.throttled_samples << " of " << n << " samples ran while the GPU throttled ("
        << (result.throttle_reasons.empty() ? "reason not reported" : result.throttle_reasons) << ")";
    status = Status::warn;
  }
  if (result.cv > config.warn_cv) {
    if (status == Status::warn) why << "; ";
    why << "samples too noisy to gate on: CV " << result.cv * 100 << " % > " << config.warn_cv * 100 << " %";
    status = Status::warn;
  }
  *reason = why.str();
  return status;
}

}  // namespace gpuqual
