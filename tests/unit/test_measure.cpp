// The measurement engine on the CPU with a scripted timer and a synthetic clock: warm-up and
// calibration, the stopping rule (CV target, min/max samples), the time budget, throttle
// accounting, the stop flag, and the statistics of the resulting metric.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <stdexcept>

#include "device/measure/measure.hpp"
#include "device/measure/measure_params.hpp"
#include "device/measure/measure_timers.hpp"

namespace gpuqual {
namespace {

// Returns reps * per_op(sample call index) seconds and advances the synthetic clock by as much.
class ScriptedTimer : public SampleTimer {
 public:
  ScriptedTimer(double* clock, std::function<double(int call)> per_op)
      : clock_(clock), per_op_(std::move(per_op)) {}
  double time_reps(int reps) override {
    const double t = per_op_(calls_++) * reps;
    *clock_ += t;
    total_reps_ += reps;
    return t;
  }
  int calls() const { return calls_; }
  long long total_reps() const { return total_reps_; }

 private:
  double* clock_;
  std::function<double(int)> per_op_;
  int calls_ = 0;
  long long total_reps_ = 0;
};

MeasureHooks synthetic_clock(double* clock) {
  MeasureHooks h;
  h.now_s = [clock] { return *clock; };
  return h;
}

// Hooks whose clock probe reads 1980 MHz and reports throttling (with `reason`) at its `nth`
// reading only; `reads` counts the readings.
MeasureHooks throttled_at_reading(double* clock, int* reads, int nth,
                                  const char* reason = "hw_thermal_slowdown") {
  MeasureHooks h = synthetic_clock(clock);
  h.clock_probe = [reads, nth, reason] {
    ClockReading c;
    c.sm_clock_mhz = 1980;
    c.throttled = (++*reads == nth);
    if (c.throttled) c.reasons = reason;
    return c;
  };
  return h;
}

MeasureConfig quick() {
  MeasureConfig c;
  c.warmup_runs = 3;
  c.warmup_s = 0.0;
  c.min_samples = 5;
  c.max_samples = 50;
  c.target_cv = 0.005;
  c.budget_s = 100;
  c.min_sample_s = 0.0;
  c.cv_window = 0;  // all samples; the window has its own tests
  return c;
}

TEST(Measure, SteadyOperationConvergesAtMinSamples) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.002; });
  const auto r = measure(timer, quick(), synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::converged);
  EXPECT_TRUE(r.converged());
  ASSERT_EQ(r.seconds_per_op.size(), 5u);
  for (double s : r.seconds_per_op) EXPECT_DOUBLE_EQ(s, 0.002);
  EXPECT_DOUBLE_EQ(r.cv, 0.0);
  EXPECT_GE(r.warmup_runs, 3);
  EXPECT_FALSE(r.clock_probed);
}

TEST(Measure, NoiseAboveTargetRunsToMaxSamples) {
  double clock = 0;
  // +-2 % alternating: CV ~ 2 %, never under 0.5 %.
  ScriptedTimer timer(&clock, [](int call) { return call % 2 ? 0.00102 : 0.00098; });
  auto cfg = quick();
  cfg.max_samples = 20;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::max_samples);
  EXPECT_EQ(r.seconds_per_op.size(), 20u);
  EXPECT_NEAR(r.cv, 0.02, 0.002);
}

TEST(Measure, NoiseThatSettlesConvergesOnceCvFallsUnderTarget) {
  double clock = 0;
  // Warm-up takes calls 0..1 (1 + 2 runs); samples 0..1 are 1 % off, the rest exact: the
  // CV of all samples falls under 0.5 % only once enough steady samples dilute the first two.
  ScriptedTimer timer(&clock, [](int call) { return call < 4 ? (call % 2 ? 1.01 : 0.99) : 1.0; });
  auto cfg = quick();
  cfg.max_samples = 100;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::converged);
  EXPECT_LE(r.cv, cfg.target_cv);
  EXPECT_GT(r.seconds_per_op.size(), 5u);  // not at min_samples: the first two were noisy
  EXPECT_LT(r.seconds_per_op.size(), 100u);
  // Exactly the first n where the CV is under target (checked independently).
  const std::size_t n = r.seconds_per_op.size();
  std::vector<double> prefix(r.seconds_per_op.begin(), r.seconds_per_op.end() - 1);
  double mean = 0;
  for (double v : prefix) mean += v;
  mean /= static_cast<double>(prefix.size());
  double var = 0;
  for (double v : prefix) var += (v - mean) * (v - mean);
  EXPECT_GT(std::sqrt(var / static_cast<double>(prefix.size() - 1)) / mean, cfg.target_cv) << "n=" << n;
}

TEST(Measure, BudgetStopsANoisyMeasurement) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int call) { return call % 2 ? 0.11 : 0.09; });  // 10 % noise
  auto cfg = quick();
  cfg.budget_s = 2.0;
  cfg.max_samples = 1000;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::budget);
  EXPECT_FALSE(r.converged());
  // Each sample is one 0.1 s run: warm-up ~0.3 s, then samples until the clock passes 2 s.
  EXPECT_GE(clock, 2.0);
  EXPECT_LT(clock, 2.0 + 0.11 + 1e-9);  // at most one sample past the budget
  EXPECT_GE(r.seconds_per_op.size(), 15u);
}

TEST(Measure, BudgetExhaustedBeforeMinSamplesStillKeepsWhatItHas) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 4.0; });
  auto cfg = quick();
  cfg.budget_s = 5.0;
  cfg.warmup_runs = 1;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::budget);
  EXPECT_GE(r.seconds_per_op.size(), 1u);
  EXPECT_LT(r.seconds_per_op.size(), static_cast<std::size_t>(cfg.min_samples));
  EXPECT_FALSE(r.converged());  // identical samples, but fewer than min_samples
}

TEST(Measure, CalibratesRepsPerSampleToTheMinimumSampleTime) {
  double clock = 0;
  const double per_op = 1.0 / 1024;  // powers of two: the ratio below is exactly 10
  ScriptedTimer timer(&clock, [per_op](int) { return per_op; });
  auto cfg = quick();
  cfg.min_sample_s = 10 * per_op;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.reps_per_sample, 10);
  EXPECT_DOUBLE_EQ(r.seconds_per_op.front(), per_op);  // per run, not per sample

  double clock2 = 0;
  ScriptedTimer tiny(&clock2, [](int) { return 1e-9; });
  cfg.max_reps = 1000;
  const auto r2 = measure(tiny, cfg, synthetic_clock(&clock2));
  EXPECT_EQ(r2.reps_per_sample, 1000);  // capped
}

TEST(Measure, WarmUpRunsForTheWarmTimeWithDoublingBatches) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.001; });
  auto cfg = quick();
  cfg.warmup_s = 0.05;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_EQ(r.warmup_runs, 63);  // 1+2+4+8+16+32: the first batch total past 50 ms
}

TEST(Measure, StopWindowIsTheLastNSamples) {
  const std::vector<double> v{1, 2, 3, 4, 5};
  EXPECT_EQ(stop_window(v, 0).size(), 5u);
  EXPECT_EQ(stop_window(v, 10).size(), 5u);
  const auto w = stop_window(v, 2);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_EQ(w[0], 4);
  EXPECT_EQ(w[1], 5);
}

// A boost/power transient: the first three samples 4 % fast, then steady. Judged on all samples
// the CV stays above 0.5 % for a long time; judged on the last 10 it converges once the
// transient has left the window.
TEST(Measure, ATransientInTheFirstSamplesDoesNotHoldOffConvergence) {
  const auto per_op = [](int call) { return call >= 2 && call < 5 ? 0.96 : 1.0; };  // calls 0-1: warm-up
  auto windowed = quick();
  windowed.cv_window = 10;
  windowed.max_samples = 200;
  double clock = 0;
  ScriptedTimer t1(&clock, per_op);
  const auto r = measure(t1, windowed, synthetic_clock(&clock));
  EXPECT_EQ(r.stop, StopReason::converged);
  EXPECT_EQ(r.seconds_per_op.size(), 13u);  // the first n whose last 10 are all steady
  EXPECT_EQ(r.cv, 0.0);
  EXPECT_EQ(r.seconds_per_op.front(), 0.96);  // every sample is kept in the record

  auto all = windowed;
  all.cv_window = 0;
  clock = 0;
  ScriptedTimer t2(&clock, per_op);
  const auto r_all = measure(t2, all, synthetic_clock(&clock));
  EXPECT_GT(r_all.seconds_per_op.size(), 40u);  // the transient dilutes only slowly
}

TEST(Measure, DenseGemmWarmUpLastsAtLeastASecond) {
  EXPECT_GE(kDenseGemmWarmupS, 1.0);
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.004; });  // one 8192^3 BF16 GEMM on an H200 is ~1.4 ms
  auto cfg = quick();
  cfg.warmup_s = kDenseGemmWarmupS;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  EXPECT_GE(r.warmup_runs * 0.004, 1.0);
}

TEST(Measure, ThrottledSamplesAreCountedAndWarnWhenTooMany) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  int reads = 0;
  // Read 1 is before the first sample, read k+1 after sample k: read 4 (after sample 3)
  // brackets samples 3 and 4.
  const MeasureHooks hooks = throttled_at_reading(&clock, &reads, 4);
  auto cfg = quick();
  cfg.min_samples = 10;
  cfg.probe_every = 1;
  cfg.max_throttled_fraction = 0.1;
  const auto r = measure(timer, cfg, hooks);
  ASSERT_EQ(r.seconds_per_op.size(), 10u);
  EXPECT_EQ(r.clock_readings, 11);
  EXPECT_EQ(r.throttled_samples, 2);
  EXPECT_EQ(r.throttled,
            (std::vector<bool>{false, false, true, true, false, false, false, false, false, false}));
  EXPECT_TRUE(r.clock_probed);
  EXPECT_EQ(r.sm_clock_mhz.size(), 10u);  // one after each sample, not the idle one before
  EXPECT_EQ(r.throttle_reasons, "hw_thermal_slowdown");
  std::string why;
  EXPECT_EQ(measurement_status(r, cfg, &why), Status::warn);
  EXPECT_NE(why.find("2 of 10 samples"), std::string::npos) << why;
  EXPECT_NE(why.find("hw_thermal_slowdown"), std::string::npos) << why;

  const Metric m = rate_metric("gemm.bf16.tflops", "TFLOP/s", 0, r, 1e12, 1e12);
  EXPECT_EQ(m.throttled_samples, 2);
}

TEST(Measure, FewThrottledSamplesPass) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  int reads = 0;
  const MeasureHooks hooks = throttled_at_reading(&clock, &reads, 1);  // before the first sample only
  auto cfg = quick();
  cfg.min_samples = 20;
  cfg.max_samples = 20;
  cfg.probe_every = 1;
  const auto r = measure(timer, cfg, hooks);
  EXPECT_EQ(r.throttled_samples, 1);
  std::string why;
  EXPECT_EQ(measurement_status(r, cfg, &why), Status::pass);  // 1/20 = 5 % <= 10 %
  EXPECT_TRUE(why.empty());
}

// The probe's NVML calls idle the GPU: read after every probe_every samples, not around each.
TEST(Measure, ClocksAreReadEveryNthSampleNotAroundEach) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  int reads = 0;
  MeasureHooks hooks = synthetic_clock(&clock);
  hooks.clock_probe = [&] {
    ++reads;
    ClockReading c;
    c.sm_clock_mhz = 1900 + reads;
    return c;
  };
  auto cfg = quick();
  cfg.min_samples = 25;
  cfg.max_samples = 25;
  EXPECT_GE(MeasureConfig{}.probe_every, 10);  // the default: at most one reading per ~100 ms of samples
  cfg.probe_every = 10;
  const auto r = measure(timer, cfg, hooks);
  ASSERT_EQ(r.seconds_per_op.size(), 25u);
  // Before the first sample, after samples 10 and 20, and after the last (25).
  EXPECT_EQ(r.clock_readings, 4);
  EXPECT_EQ(reads, 4);
  EXPECT_EQ(r.sm_clock_mhz, (std::vector<double>{1902, 1903, 1904}));
  EXPECT_EQ(r.throttled.size(), 25u);
}

TEST(Measure, AThrottledReadingMarksTheSamplesItBrackets) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  int reads = 0;
  // Reads: before, after 4, after 8, after 12: the third is after sample 8.
  const MeasureHooks hooks = throttled_at_reading(&clock, &reads, 3, "hw_slowdown");
  auto cfg = quick();
  cfg.min_samples = 12;
  cfg.max_samples = 12;
  cfg.probe_every = 4;
  const auto r = measure(timer, cfg, hooks);
  ASSERT_EQ(r.throttled.size(), 12u);
  EXPECT_EQ(r.throttled_samples, 8);  // samples 4-7 and 8-11: either end of each group
  EXPECT_FALSE(r.throttled[3]);
  EXPECT_TRUE(r.throttled[4]);
  EXPECT_TRUE(r.throttled[11]);
  EXPECT_EQ(r.throttle_reasons, "hw_slowdown");
}

TEST(Measure, AStopBetweenReadingsStillClosesTheLastGroup) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  int reads = 0;
  const MeasureHooks hooks =
      throttled_at_reading(&clock, &reads, 2);  // the closing one, after the 5th sample
  auto cfg = quick();                           // converges at min_samples = 5, under probe_every = 10
  const auto r = measure(timer, cfg, hooks);
  ASSERT_EQ(r.stop, StopReason::converged);
  EXPECT_EQ(r.clock_readings, 2);
  EXPECT_EQ(r.throttled_samples, 5);
}

TEST(Measure, StopFlagEndsSamplingAndKeepsTheSamples) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int call) { return call % 2 ? 0.11 : 0.09; });
  int checks = 0;
  MeasureHooks hooks = synthetic_clock(&clock);
  // Asked once during warm-up (after the first batch), then before every sample: the sixth
  // question comes before the fifth sample.
  hooks.should_stop = [&] { return ++checks >= 6; };
  const auto r = measure(timer, quick(), hooks);
  EXPECT_EQ(r.stop, StopReason::stop_requested);
  EXPECT_EQ(r.seconds_per_op.size(), 4u);
}

TEST(Measure, NoisySamplesWarn) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int call) { return call % 2 ? 0.012 : 0.008; });  // 20 %
  auto cfg = quick();
  cfg.max_samples = 10;
  const auto r = measure(timer, cfg, synthetic_clock(&clock));
  std::string why;
  EXPECT_EQ(measurement_status(r, cfg, &why), Status::warn);
  EXPECT_NE(why.find("too noisy"), std::string::npos) << why;
}

TEST(Measure, NoSampleIsAnError) {
  MeasureResult empty;
  std::string why;
  EXPECT_EQ(measurement_status(empty, MeasureConfig{}, &why), Status::error);
  EXPECT_FALSE(why.empty());
}

TEST(Measure, ABrokenTimerThrowsInsteadOfReportingAnInfiniteRate) {
  double clock = 0;
  ScriptedTimer zero(&clock, [](int) { return 0.0; });
  EXPECT_THROW(measure(zero, quick(), synthetic_clock(&clock)), std::runtime_error);
  ScriptedTimer nan(&clock, [](int) { return std::nan(""); });
  EXPECT_THROW(measure(nan, quick(), synthetic_clock(&clock)), std::runtime_error);
}

TEST(Measure, InconsistentConfigurationIsRejected) {
  double clock = 0;
  ScriptedTimer timer(&clock, [](int) { return 0.01; });
  auto cfg = quick();
  cfg.max_samples = 2;  // < min_samples
  EXPECT_THROW(measure(timer, cfg, synthetic_clock(&clock)), std::invalid_argument);
  cfg = quick();
  cfg.budget_s = 0;
  EXPECT_THROW(measure(timer, cfg, synthetic_clock(&clock)), std::invalid_argument);
}

TEST(Measure, RatesAndMetricStatistics) {
  MeasureResult r;
  r.seconds_per_op = {0.002, 0.001, 0.004};  // 2e12 FLOP each: 1000, 2000, 500 TFLOP/s
  r.throttled_samples = 1;
  const auto rs = rates(r, 2e12, 1e12);
  ASSERT_EQ(rs.size(), 3u);
  EXPECT_DOUBLE_EQ(rs[0], 1000);
  EXPECT_DOUBLE_EQ(rs[1], 2000);
  EXPECT_DOUBLE_EQ(rs[2], 500);
  const Metric m = rate_metric("gemm.bf16.tflops", "TFLOP/s", 3, r, 2e12, 1e12);
  EXPECT_EQ(m.name, "gemm.bf16.tflops");
  EXPECT_EQ(m.unit, "TFLOP/s");
  EXPECT_EQ(m.direction, Direction::higher);
  EXPECT_EQ(m.gpu, 3);
  EXPECT_DOUBLE_EQ(m.median, 1000);
  EXPECT_DOUBLE_EQ(m.min, 500);
  EXPECT_DOUBLE_EQ(m.max, 2000);
  EXPECT_EQ(m.n(), 3u);
  EXPECT_EQ(m.throttled_samples, 1);
  // Sample stddev of {1000, 2000, 500} = 763.76; mean 1166.67.
  EXPECT_NEAR(m.cv, 763.7626158 / 1166.6666667, 1e-6);
}

TEST(Measure, StopReasonNames) {
  EXPECT_EQ(to_string(StopReason::converged), "converged");
  EXPECT_EQ(to_string(StopReason::budget), "budget");
  EXPECT_EQ(to_string(StopReason::max_samples), "max_samples");
  EXPECT_EQ(to_string(StopReason::stop_requested), "stop_requested");
}

}  // namespace
}  // namespace gpuqual

namespace gpuqual {
namespace {

// CudaEventTimer's batch (device/measure/measure_timers.hpp): the start event is recorded behind one
// untimed run, never first on an idle stream.
TEST(MeasureTimers, StartEventIsRecordedBehindOneUntimedRun) {
  std::string order;
  enqueue_timed_batch(
      3, [&] { order += "r"; }, [&] { order += "["; }, [&] { order += "]"; });
  EXPECT_EQ(order, "r[rrr]");
}

}  // namespace
}  // namespace gpuqual
