#include "device/measure/measure.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

#include "core/base/stats.hpp"
#include "core/record/metric_summary.hpp"

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

// Warm-up: doubling batches until both the run count and the warm time are reached (or half
// the budget is gone). Returns the time of one run from the last batch.
template <class Elapsed, class Stopping>
double warm_up(SampleTimer& timer, const MeasureConfig& config, Elapsed&& elapsed, Stopping&& stopping,
               MeasureResult& result) {
  double per_op = 0, warm_time = 0;
  for (int reps = 1;; reps = std::min(reps * 2, config.max_reps)) {
    const double t = checked_time(timer, reps);
    result.warmup_runs += reps;
    warm_time += t;
    per_op = t / reps;
    if (result.warmup_runs >= config.warmup_runs && warm_time >= config.warmup_s) break;
    if (elapsed() >= config.budget_s / 2 || stopping()) break;
  }
  return per_op;
}

}  // namespace

std::string_view to_string(StopReason r) {
  switch (r) {
    case StopReason::converged:
      return "converged";
    case StopReason::budget:
      return "budget";
    case StopReason::max_samples:
      return "max_samples";
    case StopReason::stop_requested:
      return "stop_requested";
  }
  return "unknown";
}

std::span<const double> stop_window(const std::vector<double>& samples, int window) {
  const std::span<const double> all(samples);
  if (window <= 0 || samples.size() <= static_cast<std::size_t>(window)) return all;
  return all.last(static_cast<std::size_t>(window));
}

MeasureResult measure(SampleTimer& timer, const MeasureConfig& config, const MeasureHooks& hooks) {
  if (config.min_samples < 1 || config.cv_window < 0 || config.max_samples < config.min_samples ||
      config.max_reps < 1 || !(config.target_cv >= 0) || !(config.budget_s > 0)) {
    throw std::invalid_argument(
        "measure: inconsistent configuration (min/max samples, reps, CV target or budget)");
  }
  const auto now = hooks.now_s ? hooks.now_s : std::function<double()>(steady_now_s);
  const auto stopping = [&] { return hooks.should_stop && hooks.should_stop(); };
  const double start = now();
  MeasureResult result;
  result.min_samples = config.min_samples;
  result.clock_probed = static_cast<bool>(hooks.clock_probe);

  const double per_op = warm_up(
      timer, config, [&] { return now() - start; }, stopping, result);
  result.reps_per_sample = static_cast<int>(
      std::clamp(std::ceil(config.min_sample_s / per_op), 1.0, static_cast<double>(config.max_reps)));

  std::set<std::string> reasons;
  // The clock probe brackets groups of `probe_every` samples: the samples since the previous
  // reading are throttled when it or this one is (a throttle seen at either end may have
  // covered them; nothing in between is known).
  ClockReading last;
  std::size_t group_start = 0;
  const auto read_clocks = [&] {
    ClockReading r = hooks.clock_probe();
    ++result.clock_readings;
    add_reasons(reasons, r.reasons);
    return r;
  };
  const auto close_group = [&] {
    const ClockReading after = read_clocks();
    for (std::size_t i = group_start; i < result.throttled.size(); ++i)
      result.throttled[i] = last.throttled || after.throttled;
    // The clock after the samples is the one the work ran at (the one before may be idle-low).
    if (after.sm_clock_mhz) result.sm_clock_mhz.push_back(*after.sm_clock_mhz);
    last = after;
    group_start = result.throttled.size();
  };
  if (hooks.clock_probe) last = read_clocks();
  const auto probe_every = static_cast<std::size_t>(std::max(1, config.probe_every));
  for (;;) {
    if (stopping()) {
      result.stop = StopReason::stop_requested;
      break;
    }
    const double t = checked_time(timer, result.reps_per_sample);
    result.seconds_per_op.push_back(t / result.reps_per_sample);
    result.throttled.push_back(false);
    if (hooks.clock_probe && result.throttled.size() - group_start >= probe_every) close_group();

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
  if (hooks.clock_probe && group_start < result.throttled.size()) close_group();
  result.throttled_samples =
      static_cast<int>(std::count(result.throttled.begin(), result.throttled.end(), true));
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
