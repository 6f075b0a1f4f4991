// Burn-in warm-up (device/burnin/burnin_runner.hpp): untimed GEMMs for about a second of wall time
// before the TFLOP/s series starts, in short batches, whatever the calibration said one takes.
#include <gtest/gtest.h>

#include "device/burnin/burnin_runner.hpp"

namespace gpuqual {
namespace {

// Runs the warm-up loop of run_burnin on a simulated GPU where one product really takes
// `real_s` but the calibration read `calibrated_s`; returns the simulated wall time it lasted.
double simulated_warmup(double warmup_s, double calibrated_s, double real_s) {
  double elapsed = 0;
  int batches = 0;
  for (std::uint64_t n; (n = burnin_warmup_batch(elapsed, warmup_s, calibrated_s)) > 0; ++batches) {
    elapsed += static_cast<double>(n) * real_s;
    if (batches > 1000000) ADD_FAILURE() << "the warm-up does not end";
  }
  return elapsed;
}

TEST(BurninWarmup, DefaultWarmsForAtLeastASecondOfWallTime) {
  const BurninConfig c;
  EXPECT_GE(c.warmup_s, 1.0);
  for (double one : {0.0014, 0.01, 0.3}) EXPECT_GE(simulated_warmup(c.warmup_s, one, one), 1.0) << one;
}

TEST(BurninWarmup, ACalibrationThatReadTooLongStillWarmsForTheWholeTime) {
  // The first (lazily loaded) launch read 5x the real 1.4 ms: a product count derived from it
  // would warm for 0.2 s. The wall clock decides.
  EXPECT_GE(simulated_warmup(1.0, 0.007, 0.0014), 1.0);
  EXPECT_LT(simulated_warmup(1.0, 0.007, 0.0014), 1.0 + kBurninWarmupBatchS);
}

TEST(BurninWarmup, BatchesAreShortAndBounded) {
  EXPECT_EQ(burnin_warmup_batch(0.0, 1.0, 0.01), 10u);        // ~0.1 s a batch
  EXPECT_EQ(burnin_warmup_batch(0.9375, 1.0, 0.015625), 4u);  // never far past the end
  EXPECT_EQ(burnin_warmup_batch(0.0, 1.0, 5.0), 1u);          // one product longer than the warm-up
  EXPECT_EQ(burnin_warmup_batch(0.0, 1.0, 0.0), 10000u);      // a broken calibration cannot queue forever
  EXPECT_EQ(burnin_warmup_batch(1.0, 1.0, 0.01), 0u);         // over
  EXPECT_EQ(burnin_warmup_batch(0.0, 0.0, 0.01), 0u);         // warm-up off
}

}  // namespace
}  // namespace gpuqual
