// Telemetry summaries over synthetic series: percentiles of a decimated series, throttled
// fraction and reasons, ECC growth, and constant memory over a simulated 24 h at 1 Hz.
#include <gtest/gtest.h>

#include <cmath>

#include "core/rules/telemetry_summary.hpp"

namespace gpuqual {
namespace {

TEST(DecimatedSeries, KeepsEverythingUntilFull) {
  DecimatedSeries s(100);
  for (int i = 1; i <= 100; ++i) s.add(i);
  EXPECT_EQ(s.values().size(), 100U);
  EXPECT_EQ(s.stride(), 1U);
  EXPECT_DOUBLE_EQ(s.percentile(50), 50.5);
  EXPECT_DOUBLE_EQ(s.percentile(5), 5.95);
  EXPECT_DOUBLE_EQ(s.mean(), 50.5);
}

TEST(DecimatedSeries, DecimatesUniformlyOverTime) {
  DecimatedSeries s(64);
  for (int i = 0; i < 1000; ++i) s.add(i);
  EXPECT_LE(s.values().size(), 64U);
  EXPECT_EQ(s.seen(), 1000U);
  EXPECT_EQ(s.stride(), 16U);
  // Kept values are every 16th index from 0: uniform over time, time-ordered.
  for (std::size_t k = 0; k < s.values().size(); ++k) EXPECT_DOUBLE_EQ(s.values()[k], 16.0 * k);
  EXPECT_NEAR(s.percentile(50), 500, 16);
  EXPECT_DOUBLE_EQ(s.min(), 0);
  EXPECT_DOUBLE_EQ(s.max(), 999);  // extremes are exact, not decimated
  EXPECT_DOUBLE_EQ(s.mean(), 499.5);
}

TelemetrySample sample(double t, double temp, double power, std::uint64_t reasons) {
  TelemetrySample s;
  s.t_s = t;
  s.temperature_c = temp;
  s.power_w = power;
  s.power_limit_w = 700;
  s.sm_clock_mhz = 1980;
  s.clock_reasons = reasons;
  s.ecc_corrected = 5;
  s.ecc_uncorrected = 0;
  return s;
}

TEST(TelemetrySummary, ThrottledFractionAndReasons) {
  TelemetrySummary s;
  // 100 samples: 10 with HW thermal slowdown, 50 at the SW power cap (not counted as
  // throttled), 40 clean.
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t r = i < 10 ? 0x40 : i < 60 ? 0x4 : 0;
    s.add(sample(i, 60 + i * 0.1, 650, r));
  }
  EXPECT_EQ(s.samples(), 100U);
  EXPECT_DOUBLE_EQ(s.throttled_fraction(), 0.10);
  EXPECT_DOUBLE_EQ(s.power_capped_fraction(), 0.50);
  const auto reasons = s.reason_fractions();
  ASSERT_EQ(reasons.size(), 2U);
  EXPECT_EQ(reasons[0].first, "sw_power_cap");
  EXPECT_DOUBLE_EQ(reasons[0].second, 0.5);
  EXPECT_EQ(reasons[1].first, "hw_thermal_slowdown");
  EXPECT_DOUBLE_EQ(reasons[1].second, 0.1);
  EXPECT_NEAR(s.temperature().max(), 69.9, 1e-9);
  EXPECT_EQ(s.power_limit_w(), 700);
  EXPECT_EQ(s.ecc_corrected_growth(), 0U);
}

TEST(TelemetrySummary, UnreadReasonsAreNotCountedAsClean) {
  TelemetrySummary s;
  TelemetrySample a = sample(0, 50, 100, 0x40);
  TelemetrySample b = sample(1, 50, 100, 0);
  b.clock_reasons.reset();
  s.add(a);
  s.add(b);
  EXPECT_DOUBLE_EQ(s.throttled_fraction(), 1.0);
  EXPECT_EQ(s.reasons_read(), 1U);
  EXPECT_EQ(s.samples(), 2U);
}

TEST(TelemetrySummary, EccGrowthFromFirstToLast) {
  TelemetrySummary s;
  for (int i = 0; i < 10; ++i) {
    TelemetrySample x = sample(i, 50, 100, 0);
    x.ecc_corrected = 5 + (i >= 7 ? 3 : 0);
    x.ecc_uncorrected = i >= 9 ? 1 : 0;
    s.add(x);
  }
  EXPECT_EQ(s.ecc_corrected_growth(), 3U);
  EXPECT_EQ(s.ecc_uncorrected_growth(), 1U);
}

TEST(TelemetrySummary, MemoryStaysConstantOverADayAtOneHertz) {
  TelemetrySummary s(1024);
  std::size_t after_first_hour = 0;
  for (int t = 0; t < 86'400; ++t) {
    // A diurnal-ish temperature swing and a thermal event in hour 5.
    const bool hot = t >= 5 * 3600 && t < 5 * 3600 + 864;  // 1 % of the day
    s.add(sample(t, 65 + 10 * std::sin(t / 3600.0), 690, hot ? 0x40 : 0x4));
    if (t == 3599) after_first_hour = s.footprint_bytes();
  }
  EXPECT_EQ(s.footprint_bytes(), after_first_hour);
  EXPECT_LE(s.temperature().values().size(), 1024U);
  EXPECT_EQ(s.temperature().seen(), 86'400U);
  EXPECT_NEAR(s.throttled_fraction(), 0.01, 1e-12);
  EXPECT_NEAR(s.temperature().max(), 75, 0.01);
  EXPECT_NEAR(s.temperature().percentile(50), 65, 2.0);
}

}  // namespace
}  // namespace gpuqual
