#pragma once
// The measurement engine (docs/architecture.md, "Measurement discipline"): warm up, calibrate how many
// back-to-back runs make one sample, then sample until the relative noise (CV) is under a target
// or the time budget ends, reading the SM clock and throttle state every `probe_every` samples.
//
// The engine knows nothing of CUDA: a SampleTimer times `reps` runs of one operation (CUDA
// events on the GPU, see measure_timers.hpp; a scripted timer in CPU tests) and the wall
// clock, the clock probe and the stop flag are injected, so the stopping rule, the statistics
// and the budget are tested on the CPU.
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct MeasureConfig {
  int warmup_runs = 3;     // untimed runs before sampling (at least this many...)
  double warmup_s = 0.05;  // ... and for at least this long, so clocks settle (dense GEMM: 1 s,
                           // see kDenseGemmWarmupS)
  int min_samples = 5;     // never call a result converged with fewer samples
  int max_samples = 100;
  double target_cv = 0.005;     // stop when the CV of the samples is at or under this (0.5 %)
  int cv_window = 10;           // ... judged on the last this many samples (0: all of them), so a
                                // clock transient in the first samples does not hold off convergence
  double budget_s = 10;         // wall time for warm-up plus sampling; at least one sample is taken
  double min_sample_s = 0.005;  // each sample runs the operation enough times to last this long
  int max_reps = 100000;
  double max_throttled_fraction = 0.1;  // more throttled samples than this: warn
  double warn_cv = 0.05;                // a result noisier than this (5 %) is a warn: not worth gating on
  int probe_every = 10;                 // the clock probe reads after every this many samples (and before
                                        // the first, and after the last), not around each: its NVML calls
                                        // leave the GPU idle 0.3-1 ms, which next to ~10 ms samples would
                                        // make the figures nearer burst than sustained
};

// Times `reps` back-to-back runs of one operation and returns the seconds they took in all.
class SampleTimer {
 public:
  virtual ~SampleTimer() = default;
  virtual double time_reps(int reps) = 0;
};

// One reading of the GPU's clock state (NVML), taken before the first sample and after every
// `probe_every` samples: the samples between two readings are throttled when either is.
struct ClockReading {
  std::optional<double> sm_clock_mhz;
  bool throttled = false;  // a reason that lowers clocks (power cap, thermal, HW slowdown) was active
  std::string reasons;     // names of the active reasons, for the record ("sw_power_cap,hw_thermal")
};
using ClockProbe = std::function<ClockReading()>;

struct MeasureHooks {
  std::function<double()> now_s;      // wall clock in seconds; steady_clock when empty
  ClockProbe clock_probe;             // empty: no clock/throttle readings (recorded as such)
  std::function<bool()> should_stop;  // the run is being stopped: keep what we have
};

enum class StopReason { converged, budget, max_samples, stop_requested };
std::string_view to_string(StopReason r);

struct MeasureResult {
  std::vector<double> seconds_per_op;  // one per sample: sample time / reps
  std::vector<bool> throttled;         // per sample
  std::vector<double> sm_clock_mhz;    // per reading after samples where the probe read one (may be empty)
  int clock_readings = 0;              // readings the probe took
  int throttled_samples = 0;
  std::string throttle_reasons;  // every reason seen during sampling, comma separated
  bool clock_probed = false;     // false: no probe was given (no NVML)
  int warmup_runs = 0;
  int reps_per_sample = 1;
  double cv = 0;  // CV of the samples the stopping rule judged (stop_window)
  StopReason stop = StopReason::converged;
  int min_samples = 0;  // the config's: fewer when the budget ran out is "too few to gate on"
  bool converged() const { return stop == StopReason::converged; }
};

// The last `window` samples (all of them when window <= 0 or there are fewer): what the
// stopping rule's CV is computed on.
std::span<const double> stop_window(const std::vector<double>& samples, int window);

// Runs the loop. Throws whatever the timer throws (a CudaError, say).
MeasureResult measure(SampleTimer& timer, const MeasureConfig& config, const MeasureHooks& hooks = {});

// Each sample as a rate: work_per_op / seconds / unit_scale (e.g. FLOPs, 1e12 -> TFLOP/s).
std::vector<double> rates(const MeasureResult& result, double work_per_op, double unit_scale);

// The metric for a measured rate (median, CV, min, max, throttled samples).
Metric rate_metric(std::string name, std::string unit, std::optional<int> gpu, const MeasureResult& result,
                   double work_per_op, double unit_scale);

// The measurement's own verdict: warn when too many samples were throttled or the samples are
// too noisy to gate on; pass otherwise. `reason` says why (empty on pass).
Status measurement_status(const MeasureResult& result, const MeasureConfig& config, std::string* reason);

}  // namespace gpuqual
