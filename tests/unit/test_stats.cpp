#include "core/stats.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace gpuqual;

TEST(Stats, EmptyInputsAreZeroNotNaN) {
  std::vector<double> none;
  EXPECT_EQ(stats::mean(none), 0);
  EXPECT_EQ(stats::median(none), 0);
  EXPECT_EQ(stats::stddev(none), 0);
  EXPECT_EQ(stats::cv(none), 0);
  EXPECT_EQ(stats::mad(none), 0);
  EXPECT_EQ(stats::percentile(none, 5), 0);
}

TEST(Stats, SingleSampleHasNoSpread) {
  std::vector<double> one{42.0};
  EXPECT_EQ(stats::median(one), 42.0);
  EXPECT_EQ(stats::stddev(one), 0);
  EXPECT_EQ(stats::cv(one), 0);
}

TEST(Stats, HandComputedValues) {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sample variance 32/7.
  std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(stats::mean(x), 5.0);
  EXPECT_DOUBLE_EQ(stats::median(x), 4.5);
  EXPECT_NEAR(stats::stddev(x), 2.138089935, 1e-9);
  EXPECT_NEAR(stats::cv(x), 2.138089935 / 5.0, 1e-9);
  // |x - 4.5| = 2.5 .5 .5 .5 .5 .5 2.5 4.5 → median 0.5
  EXPECT_DOUBLE_EQ(stats::mad(x), 0.5);
  EXPECT_DOUBLE_EQ(stats::robust_sigma(x), 1.4826 * 0.5);
  EXPECT_DOUBLE_EQ(stats::min(x), 2);
  EXPECT_DOUBLE_EQ(stats::max(x), 9);
}

TEST(Stats, PercentileInterpolatesLinearly) {
  std::vector<double> x{10, 20, 30, 40, 50};
  EXPECT_DOUBLE_EQ(stats::percentile(x, 0), 10);
  EXPECT_DOUBLE_EQ(stats::percentile(x, 100), 50);
  EXPECT_DOUBLE_EQ(stats::percentile(x, 25), 20);
  EXPECT_DOUBLE_EQ(stats::percentile(x, 10), 14);
  EXPECT_DOUBLE_EQ(stats::median(x), 30);
}

TEST(Stats, ZeroMeanGivesZeroCvNotInf) {
  std::vector<double> x{-1, 1, -1, 1};
  EXPECT_EQ(stats::cv(x), 0);
}

TEST(Stats, OneOutlierDoesNotMoveMedianOrMad) {
  std::vector<double> x{100, 101, 99, 100, 100.5, 3};
  EXPECT_DOUBLE_EQ(stats::median(x), 100);
  EXPECT_LT(stats::mad(x), 1.0);
}
