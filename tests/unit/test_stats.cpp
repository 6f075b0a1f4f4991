#include "core/base/stats.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
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

// percentile selects instead of sorting: it must give the very bits of the sorted definition
// (a stored median is checked against the recomputed one), for any size, p and ties, and leave
// its input alone.
TEST(Stats, PercentileIsTheSortedDefinitionBitForBit) {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<int> coarse(0, 9);  // many ties
  std::normal_distribution<double> fine(1000.0, 50.0);
  for (std::size_t n : {1U, 2U, 3U, 4U, 5U, 19U, 20U, 21U, 100U, 1001U}) {
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> x(n);
      for (auto& v : x) v = trial % 2 ? coarse(rng) : fine(rng);
      const std::vector<double> before = x;
      std::vector<double> sorted = x;
      std::sort(sorted.begin(), sorted.end());
      for (double p : {0.0, 1.0, 5.0, 10.0, 25.0, 33.3, 50.0, 75.0, 90.0, 95.0, 99.0, 100.0}) {
        const double rank = p / 100.0 * static_cast<double>(n - 1);
        const auto lo = static_cast<std::size_t>(std::floor(rank));
        const auto hi = static_cast<std::size_t>(std::ceil(rank));
        const double want = sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - static_cast<double>(lo));
        EXPECT_EQ(stats::percentile(x, p), want) << "n=" << n << " p=" << p;
      }
      EXPECT_EQ(x, before);
    }
  }
}

// The readers' fast check of a stored median must give median()'s bits whatever the hint is:
// right, off by a little, another sample, outside the range, not finite; with ties or without.
TEST(Stats, MedianWithHintIsTheMedianForAnyHint) {
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> coarse(0, 4);
  std::normal_distribution<double> fine(500.0, 20.0);
  const double inf = std::numeric_limits<double>::infinity();
  for (std::size_t n : {1U, 2U, 3U, 4U, 5U, 6U, 19U, 20U, 21U, 100U}) {
    for (int trial = 0; trial < 40; ++trial) {
      std::vector<double> x(n);
      for (auto& v : x) v = trial % 2 ? coarse(rng) : fine(rng);
      const double want = stats::median(x);
      std::vector<double> hints = {want,
                                   std::nextafter(want, inf),
                                   std::nextafter(want, -inf),
                                   want + 1e-3,
                                   want - 1.0,
                                   x.front(),
                                   x.back(),
                                   1e9,
                                   -1e9,
                                   inf,
                                   -inf,
                                   std::nan("")};
      if (n > 1) {
        std::vector<double> sorted = x;
        std::sort(sorted.begin(), sorted.end());
        hints.push_back(sorted[n / 2]);
        hints.push_back(sorted[(n - 1) / 2]);
        hints.push_back((sorted[0] + sorted[1]) / 2);
      }
      for (double h : hints) EXPECT_EQ(stats::median_with_hint(x, h), want) << "n=" << n << " hint=" << h;
    }
  }
  EXPECT_EQ(stats::median_with_hint(std::vector<double>{}, 1.0), 0);
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
