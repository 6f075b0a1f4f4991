// Burn-in's plain rules: bit-exact result comparison, stop accounting, telemetry findings.
#include <gtest/gtest.h>

#include "core/rules/burnin_logic.hpp"

namespace gpuqual {
namespace {

TEST(ResultComparator, FirstHashIsTheReference) {
  ResultComparator c;
  EXPECT_TRUE(c.observe(0, 0xabc));
  EXPECT_TRUE(c.observe(1, 0xabc));
  EXPECT_EQ(c.mismatches(), 0U);
  EXPECT_EQ(c.reference(), 0xabcU);
  EXPECT_EQ(c.describe(), "all 2 iterations matched bit for bit");
}

TEST(ResultComparator, CountsEveryMismatchAndKeepsTheFirst) {
  ResultComparator c;
  c.observe(0, 1);
  for (std::uint64_t i = 1; i < 100; ++i) c.observe(i, i == 17 || i == 50 ? 2 + i : 1);
  EXPECT_EQ(c.iterations(), 100U);
  EXPECT_EQ(c.mismatches(), 2U);
  EXPECT_EQ(c.first_mismatch_iteration(), 17U);
  EXPECT_EQ(c.first_mismatch_hash(), 19U);
  EXPECT_NE(c.describe().find("2 of 100 iterations differed"), std::string::npos) << c.describe();
  EXPECT_NE(c.describe().find("iteration 17"), std::string::npos) << c.describe();
}

TEST(BurninDuration, StoppedBeforeTheMinimumIsIncomplete) {
  EXPECT_EQ(burnin_incomplete_reason(725, 7200, 7200), "stopped after 12 of 120 minutes");
  EXPECT_EQ(burnin_incomplete_reason(3.5, 10, 10), "stopped after 3 of 10 seconds");
  EXPECT_FALSE(burnin_incomplete_reason(7200, 7200, 7200));
  EXPECT_FALSE(burnin_incomplete_reason(3700, 7200, 3600));  // the suite's minimum was reached
}

TelemetrySample s(std::uint64_t reasons, std::uint64_t ecc_u) {
  TelemetrySample x;
  x.clock_reasons = reasons;
  x.ecc_uncorrected = ecc_u;
  x.ecc_corrected = 0;
  return x;
}

TEST(BurninTelemetry, ThrottlingAboveThresholdWarnsWithReasons) {
  TelemetrySummary sum;
  for (int i = 0; i < 100; ++i) sum.add(s(i < 8 ? 0x20 : 0x4, 0));
  const TelemetryVerdict v = judge_telemetry(sum, BurninThresholds{0.05});
  EXPECT_TRUE(v.throttle_warn);
  EXPECT_NE(v.throttle_detail.find("sw_thermal_slowdown 8.0%"), std::string::npos) << v.throttle_detail;
  EXPECT_FALSE(v.ecc_fail);
  EXPECT_FALSE(judge_telemetry(sum, BurninThresholds{0.10}).throttle_warn);
}

TEST(BurninTelemetry, NewUncorrectedEccFails) {
  TelemetrySummary sum;
  sum.add(s(0, 2));
  sum.add(s(0, 3));
  const TelemetryVerdict v = judge_telemetry(sum, {});
  EXPECT_TRUE(v.ecc_fail);
  EXPECT_NE(v.ecc_detail.find("1 uncorrected"), std::string::npos) << v.ecc_detail;
  EXPECT_FALSE(v.throttle_warn);
}

}  // namespace
}  // namespace gpuqual

TEST(BurninUnwatched, NoTelemetryAndNoXidWatchEachWarn) {
  EXPECT_TRUE(gpuqual::burnin_unwatched(120, true, "").empty());
  const auto no_telemetry = gpuqual::burnin_unwatched(0, true, "");
  ASSERT_EQ(no_telemetry.size(), 1u);
  EXPECT_NE(no_telemetry[0].find("throttling and ECC growth"), std::string::npos);
  const auto no_xids = gpuqual::burnin_unwatched(5, false, "nvmlEventSetCreate: NVML_ERROR_NOT_SUPPORTED");
  ASSERT_EQ(no_xids.size(), 1u);
  EXPECT_NE(no_xids[0].find("Xid watch off (nvmlEventSetCreate: NVML_ERROR_NOT_SUPPORTED)"),
            std::string::npos);
  EXPECT_EQ(gpuqual::burnin_unwatched(0, false, "").size(), 2u);
}
