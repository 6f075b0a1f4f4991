#include "core/verdict/noise_model.hpp"
#include "core/verdict/noise_model_options.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

using namespace gpuqual;
using namespace gpuqual::noise;

namespace {

std::vector<double> jitter(std::mt19937_64& rng, double center, double cv, int n) {
  std::normal_distribution<double> d(center, center * cv);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(d(rng));
  return v;
}

}  // namespace

TEST(NoiseModel, NormalQuantile) {
  EXPECT_NEAR(normal_quantile(0.975), 1.959963985, 1e-8);
  EXPECT_NEAR(normal_quantile(0.5), 0.0, 1e-12);
  EXPECT_NEAR(normal_quantile(0.005), -2.575829304, 1e-8);
}

// Reference ranks from the exact null distribution, computed independently with the recursion
// f(n,m,u) = f(n-1,m,u-m) + f(n,m-1,u); n=m=10 → D(24)..D(77) is the textbook 95 % interval.
TEST(NoiseModel, MosesRankMatchesExactDistribution) {
  double cov = 0;
  EXPECT_EQ(moses_rank(10, 10, 0.95, &cov), 24u);
  EXPECT_NEAR(cov, 0.956743, 1e-6);
  EXPECT_EQ(moses_rank(5, 5, 0.95, &cov), 3u);
  EXPECT_NEAR(cov, 0.968254, 1e-6);
  EXPECT_EQ(moses_rank(20, 20, 0.95, &cov), 128u);
  EXPECT_NEAR(cov, 0.950910, 1e-6);
  EXPECT_EQ(moses_rank(8, 12, 0.95, &cov), 23u);
  EXPECT_EQ(moses_rank(12, 8, 0.95, &cov), 23u);  // symmetric in the two sizes
  // 3 vs 5: the widest interval just reaches 95 % (smallest p = 2/56).
  EXPECT_EQ(moses_rank(3, 5, 0.95, &cov), 1u);
  EXPECT_NEAR(cov, 1.0 - 2.0 / 56.0, 1e-12);
}

TEST(NoiseModel, MosesRankTooFewSamplesUsesFullRange) {
  double cov = 0;
  EXPECT_EQ(moses_rank(3, 3, 0.95, &cov), 1u);
  EXPECT_NEAR(cov, 0.9, 1e-12);  // 1 - 2/C(6,3)
  EXPECT_EQ(moses_rank(1, 1, 0.95, &cov), 1u);
  EXPECT_NEAR(cov, 0.0, 1e-12);
}

TEST(NoiseModel, MosesRankNormalApproximationIsCloseToExact) {
  // 100 x 100 = 10,000 is the last exact size; 101 x 100 uses the approximation.
  double exact_cov = 0, approx_cov = 0;
  const std::size_t exact = moses_rank(100, 100, 0.95, &exact_cov);
  const std::size_t approx = moses_rank(101, 100, 0.95, &approx_cov);
  EXPECT_NEAR(static_cast<double>(approx), static_cast<double>(exact) + 50.0, 30.0);
  EXPECT_GE(exact_cov, 0.95);
  EXPECT_NEAR(approx_cov, 0.95, 0.002);
}

TEST(NoiseModel, MedianRankBinomial) {
  double cov = 0;
  EXPECT_EQ(median_rank(8, 0.95, &cov), 1u);  // P(X<=1) = 9/256 > 0.025
  EXPECT_NEAR(cov, 1.0 - 2.0 / 256.0, 1e-12);
  EXPECT_EQ(median_rank(20, 0.95, &cov), 6u);  // P(X<=5) = 0.0207, P(X<=6) = 0.0577
  EXPECT_NEAR(cov, 1.0 - 2.0 * 21700.0 / 1048576.0, 1e-9);
  EXPECT_EQ(median_rank(5, 0.95, &cov), 1u);
  EXPECT_NEAR(cov, 1.0 - 2.0 / 32.0, 1e-12);  // 93.75 %: not reached
  EXPECT_GT(median_rank(10000, 0.95, &cov), 4800u);
}

TEST(NoiseModel, SelectionAgreesWithEnumeration) {
  std::mt19937_64 rng(7);
  std::vector<double> a = jitter(rng, 100, 0.01, 300), b = jitter(rng, 99, 0.02, 300);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  // 90,000 pairs take the counting path; compare with a plain sort of all differences.
  std::vector<double> all;
  for (double y : b)
    for (double x : a) all.push_back(x - y);
  std::sort(all.begin(), all.end());
  for (std::size_t k : {std::size_t{1}, std::size_t{2}, std::size_t{4000}, std::size_t{45000},
                        std::size_t{45001}, std::size_t{89999}, std::size_t{90000}}) {
    EXPECT_EQ(kth_pairwise_difference(a, b, k), all[k - 1]) << "k=" << k;
  }
}

TEST(NoiseModel, PureScaleChangeIsTheRatio) {
  std::mt19937_64 rng(1);
  std::vector<double> before = jitter(rng, 1000, 0.005, 20);
  std::vector<double> after = before;
  for (double& v : after) v *= 0.97;
  auto c = relative_change(before, after, 0.95);
  ASSERT_TRUE(c);
  EXPECT_TRUE(c->log_scale);
  EXPECT_NEAR(c->estimate, -0.03, 1e-12);
  EXPECT_LT(c->low, -0.03);
  EXPECT_GT(c->high, -0.03);
  EXPECT_TRUE(c->reached);
  EXPECT_GE(c->confidence, 0.95);
}

TEST(NoiseModel, IdenticalSamplesGiveZeroWidth) {
  std::vector<double> x(10, 5.0);
  auto c = relative_change(x, x, 0.95);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->estimate, 0.0);
  EXPECT_EQ(c->low, 0.0);
  EXPECT_EQ(c->high, 0.0);
}

TEST(NoiseModel, NonPositiveSamplesUseAdditiveShift) {
  std::vector<double> before{0, 10, 10, 10, 20};
  std::vector<double> after{0, 5, 5, 5, 15};
  auto c = relative_change(before, after, 0.95);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->log_scale);
  EXPECT_NEAR(c->estimate, -0.5, 1e-12);  // shift of -5 over the before-median 10
  std::vector<double> zeros{0, 0, 0};
  EXPECT_FALSE(relative_change(zeros, after, 0.95));  // before-median 0: undefined
  std::vector<double> none;
  EXPECT_FALSE(relative_change(none, after, 0.95));
}

TEST(NoiseModel, MedianVsExpected) {
  std::vector<double> v{96, 95, 97, 96, 94, 96, 95, 97};
  auto c = median_vs_expected(v, 100, 0.95);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->estimate, -0.04, 1e-12);
  EXPECT_NEAR(c->low, -0.06, 1e-12);   // min with 8 values
  EXPECT_NEAR(c->high, -0.03, 1e-12);  // max
  EXPECT_FALSE(median_vs_expected(v, 0, 0.95));
}

TEST(NoiseModel, JudgeChangeHigherIsBetter) {
  DropRule rule{0.02, std::nullopt, 0.95};
  RelativeChange confirmed{-0.05, -0.06, -0.04, 0.95, true, true};
  EXPECT_EQ(judge_change(confirmed, Direction::higher, rule).status, Status::fail);
  RelativeChange unconfirmed{-0.03, -0.06, -0.01, 0.95, true, true};
  auto j = judge_change(unconfirmed, Direction::higher, rule);
  EXPECT_EQ(j.status, Status::warn);
  EXPECT_NE(j.reason.find("not with 95 % confidence"), std::string::npos) << j.reason;
  RelativeChange jitter_only{-0.004, -0.007, -0.001, 0.95, true, true};
  EXPECT_EQ(judge_change(jitter_only, Direction::higher, rule).status, Status::pass);
  RelativeChange improvement{0.10, 0.08, 0.12, 0.95, true, true};
  EXPECT_EQ(judge_change(improvement, Direction::higher, rule).status, Status::pass);
  DropRule with_warn{0.05, 0.01, 0.95};
  RelativeChange small{-0.02, -0.025, -0.015, 0.95, true, true};
  EXPECT_EQ(judge_change(small, Direction::higher, with_warn).status, Status::warn);
}

TEST(NoiseModel, JudgeChangeLowerIsBetter) {
  DropRule rule{0.02, std::nullopt, 0.95};
  RelativeChange slower{0.05, 0.04, 0.06, 0.95, true, true};  // latency up 5 %
  auto j = judge_change(slower, Direction::lower, rule);
  EXPECT_EQ(j.status, Status::fail);
  EXPECT_NE(j.reason.find("rise"), std::string::npos) << j.reason;
  RelativeChange faster{-0.05, -0.06, -0.04, 0.95, true, true};
  EXPECT_EQ(judge_change(faster, Direction::lower, rule).status, Status::pass);
}

// The property the issue asks for: 0.5 % run-to-run jitter never fails a node. Many seeded
// pairs, each with per-sample jitter of 0.5 % CV and, on top, a whole-run offset of 0.5 % (clock
// and thermal state differ between runs): the false-fail rate must stay <= 1 %.
TEST(NoiseModel, JitterOnlyPairsRarelyFail) {
  std::mt19937_64 rng(20261130);
  std::normal_distribution<double> run_offset(0.0, 0.005);
  const DropRule rule{0.02, std::nullopt, 0.95};
  int fails = 0, warns = 0;
  const int pairs = 1000;
  for (int i = 0; i < pairs; ++i) {
    const auto before = jitter(rng, 1000.0 * (1 + run_offset(rng)), 0.005, 20);
    const auto after = jitter(rng, 1000.0 * (1 + run_offset(rng)), 0.005, 20);
    auto c = relative_change(before, after, rule.confidence);
    ASSERT_TRUE(c);
    const Status s = judge_change(*c, Direction::higher, rule).status;
    fails += s == Status::fail;
    warns += s == Status::warn;
  }
  EXPECT_LE(fails, pairs / 100) << fails << " false fails in " << pairs << " jitter-only pairs";
  EXPECT_LE(warns, pairs / 100) << warns << " warnings in " << pairs << " jitter-only pairs";
}

// And a real 3 % drop on a quiet metric (0.3 % CV) fails essentially always; 5 % with 0.5 % CV
// always does.
TEST(NoiseModel, RealDropsFail) {
  std::mt19937_64 rng(42);
  const DropRule rule{0.02, std::nullopt, 0.95};
  int caught3 = 0, caught5 = 0;
  const int pairs = 200;
  for (int i = 0; i < pairs; ++i) {
    auto c3 = relative_change(jitter(rng, 1000, 0.003, 20), jitter(rng, 970, 0.003, 20), rule.confidence);
    auto c5 = relative_change(jitter(rng, 1000, 0.005, 20), jitter(rng, 950, 0.005, 20), rule.confidence);
    caught3 += judge_change(*c3, Direction::higher, rule).status == Status::fail;
    caught5 += judge_change(*c5, Direction::higher, rule).status == Status::fail;
  }
  EXPECT_GE(caught3, pairs * 99 / 100);
  EXPECT_EQ(caught5, pairs);
}

TEST(NoiseModel, FewSamplesNeedEveryPairWorse) {
  const DropRule rule{0.02, std::nullopt, 0.95};
  // 3 vs 3: 95 % is out of reach; the full range is used and must clear the allowed drop.
  std::vector<double> before{100, 101, 99}, after{95, 96, 94};
  auto c = relative_change(before, after, 0.95);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->reached);
  auto j = judge_change(*c, Direction::higher, rule);
  EXPECT_EQ(j.status, Status::fail);  // worst-case pair 96/99 is still -3 %
  EXPECT_NE(j.reason.find("too few samples"), std::string::npos) << j.reason;
  std::vector<double> overlapping{97, 99.5, 95};
  EXPECT_NE(judge_change(*relative_change(before, overlapping, 0.95), Direction::higher, rule).status,
            Status::fail);
}

TEST(NoiseModel, LargeSamplesAreFast) {
  // A 10,000-sample burn-in metric against another: counting selection, not 10^8 differences.
  std::mt19937_64 rng(3);
  auto before = jitter(rng, 500, 0.01, 10000), after = jitter(rng, 490, 0.01, 10000);
  auto c = relative_change(before, after, 0.95);
  ASSERT_TRUE(c);
  EXPECT_NEAR(c->estimate, -0.02, 0.002);
  EXPECT_LT(c->high - c->low, 0.002);
  EXPECT_TRUE(c->reached);
}

TEST(NoiseModelOptions, DropPercentAndConfidence) {
  EXPECT_DOUBLE_EQ(*parse_drop_percent("2"), 0.02);
  EXPECT_DOUBLE_EQ(*parse_drop_percent("2.5%"), 0.025);
  EXPECT_DOUBLE_EQ(*parse_drop_percent("0 %"), 0.0);
  EXPECT_FALSE(parse_drop_percent("-1"));
  EXPECT_FALSE(parse_drop_percent("100"));
  EXPECT_FALSE(parse_drop_percent("2x"));
  EXPECT_FALSE(parse_drop_percent(""));
  EXPECT_DOUBLE_EQ(*parse_confidence("0.95"), 0.95);
  EXPECT_DOUBLE_EQ(*parse_confidence("99%"), 0.99);
  EXPECT_FALSE(parse_confidence("95"));
  EXPECT_FALSE(parse_confidence("1"));
  EXPECT_FALSE(parse_confidence("0"));
  EXPECT_FALSE(parse_confidence("abc"));
}
