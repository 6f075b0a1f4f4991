// Burn-in warm-up (device/burnin_runner.hpp): about a second of untimed GEMMs before the
// TFLOP/s series starts, whatever one product takes.
#include <gtest/gtest.h>

#include "device/burnin_runner.hpp"

namespace gpuqual {
namespace {

TEST(BurninWarmup, DefaultWarmsForAtLeastASecond) {
  const BurninConfig c;
  EXPECT_GE(c.warmup_s, 1.0);
  for (double one : {0.0014, 0.01, 0.3}) {
    EXPECT_GE(static_cast<double>(burnin_warmup_products(one, c.warmup_s)) * one, 1.0) << one;
  }
}

TEST(BurninWarmup, ProductCountIsBounded) {
  EXPECT_EQ(burnin_warmup_products(0.5, 1.0), 2u);
  EXPECT_EQ(burnin_warmup_products(0.4, 1.0), 3u);   // ceil: never shorter than asked
  EXPECT_EQ(burnin_warmup_products(5.0, 1.0), 1u);   // one product longer than the warm-up
  EXPECT_EQ(burnin_warmup_products(0.0, 1.0), 100000u);  // a broken calibration cannot loop forever
  EXPECT_EQ(burnin_warmup_products(0.01, 0.0), 0u);  // warm-up off
}

}  // namespace
}  // namespace gpuqual
