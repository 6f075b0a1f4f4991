// The all-reduce pattern, called on the CPU exactly as the fill and verify kernels call it:
// small integers whose sums stay exact in float and bf16 in any reduction order, never all
// zero, different per rank and seed, and a check that a NaN (a never-written element) fails.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "kernels/nccl_pattern.cuh"

namespace gpuqual::kernels {
namespace {

// Round-to-nearest-even float -> bf16 -> float, as a GPU rounds a bf16 partial sum.
float round_to_bf16(float x) {
  std::uint32_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t lsb = (bits >> 16) & 1u;
  bits += 0x7fffu + lsb;
  bits &= 0xffff0000u;
  float out = 0;
  std::memcpy(&out, &bits, sizeof out);
  return out;
}

TEST(NcclPattern, MagnitudeAndStrideKeepEverySumExact) {
  struct Case {
    ReduceType type;
    int nranks, stride, magnitude;
  };
  const Case cases[] = {
      {ReduceType::f32, 2, 1, 1000}, {ReduceType::f32, 8, 1, 1000}, {ReduceType::f32, 1024, 1, 1000},
      {ReduceType::bf16, 2, 1, 128}, {ReduceType::bf16, 8, 1, 32},  {ReduceType::bf16, 16, 1, 16},
      {ReduceType::bf16, 256, 1, 1}, {ReduceType::bf16, 300, 2, 1}, {ReduceType::bf16, 1000, 4, 1},
  };
  for (const auto& c : cases) {
    const auto p = make_allreduce_pattern(7, c.nranks, c.type);
    EXPECT_EQ(p.stride, c.stride) << c.nranks;
    EXPECT_EQ(p.magnitude, c.magnitude) << c.nranks;
    const std::int64_t contributors = (p.nranks + p.stride - 1) / p.stride;
    EXPECT_LE(contributors * p.magnitude, exact_integer_limit(c.type)) << c.nranks;
  }
}

TEST(NcclPattern, ExpectedIsTheSumOfContributionsAndNeverAllZero) {
  for (auto type : {ReduceType::f32, ReduceType::bf16}) {
    for (int n : {2, 3, 8, 16, 300}) {
      const auto p = make_allreduce_pattern(42, n, type);
      std::set<int> seen;
      int nonzero_sums = 0;
      for (std::uint64_t i = 0; i < 2000; ++i) {
        std::int64_t sum = 0;
        for (int r = 0; r < n; ++r) {
          const int v = allreduce_contribution(p, r, i);
          ASSERT_LE(std::abs(v), p.magnitude);
          if (static_cast<std::uint64_t>(r % p.stride) != i % static_cast<std::uint64_t>(p.stride)) {
            ASSERT_EQ(v, 0);
          }
          seen.insert(v);
          sum += v;
        }
        ASSERT_EQ(allreduce_expected(p, i), sum) << "n " << n << " i " << i;
        ASSERT_LE(std::llabs(sum), exact_integer_limit(type));
        if (sum != 0) ++nonzero_sums;
      }
      EXPECT_GT(nonzero_sums, 1500) << "n " << n;           // never on zeros
      EXPECT_GE(seen.size(), std::size_t{3}) << "n " << n;  // more than a sign
    }
  }
}

TEST(NcclPattern, RanksAndSeedsGiveDifferentData) {
  const auto p = make_allreduce_pattern(1, 8, ReduceType::f32);
  const auto q = make_allreduce_pattern(2, 8, ReduceType::f32);
  int same_rank = 0, same_seed = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    same_rank += allreduce_contribution(p, 0, i) == allreduce_contribution(p, 1, i);
    same_seed += allreduce_contribution(p, 0, i) == allreduce_contribution(q, 0, i);
    ASSERT_EQ(allreduce_contribution(p, 3, i), allreduce_contribution(p, 3, i));  // a pure function
  }
  EXPECT_LT(same_rank, 20);
  EXPECT_LT(same_seed, 20);
}

// Whatever order NCCL adds in (ring, tree, NVLS), every partial sum is an exact integer.
TEST(NcclPattern, SumsAreExactInAnyOrderInFloatAndBf16) {
  std::mt19937 rng(5);
  for (auto type : {ReduceType::f32, ReduceType::bf16}) {
    for (int n : {2, 8, 16, 72}) {
      const auto p = make_allreduce_pattern(99, n, type);
      std::vector<int> order(static_cast<std::size_t>(n));
      std::iota(order.begin(), order.end(), 0);
      for (std::uint64_t i = 0; i < 3000; ++i) {
        std::shuffle(order.begin(), order.end(), rng);
        float acc = 0;
        for (int r : order) {
          acc = acc + static_cast<float>(allreduce_contribution(p, r, i));
          if (type == ReduceType::bf16) acc = round_to_bf16(acc);
        }
        ASSERT_TRUE(allreduce_element_ok(acc, allreduce_expected(p, i)))
            << "type " << static_cast<int>(type) << " n " << n;
      }
    }
  }
}

TEST(NcclPattern, Bf16BitsRoundTripEveryExactInteger) {
  for (int v = -256; v <= 256; ++v) {
    const std::uint16_t bits = bf16_bits_of_exact(static_cast<float>(v));
    EXPECT_EQ(float_of_bf16_bits(bits), static_cast<float>(v)) << v;
  }
  EXPECT_EQ(bf16_bits_of_exact(1.0f), 0x3f80);
  EXPECT_EQ(bf16_bits_of_exact(-2.0f), 0xc000);
}

TEST(NcclPattern, NeverWrittenAndWrongElementsFail) {
  // The receive buffer is poisoned with all-ones bytes: NaN in float and in bf16.
  float nan32 = 0;
  const std::uint32_t ones = 0xffffffffu;
  std::memcpy(&nan32, &ones, sizeof nan32);
  EXPECT_FALSE(allreduce_element_ok(nan32, 0));
  EXPECT_FALSE(allreduce_element_ok(float_of_bf16_bits(0xffff), 0));
  EXPECT_TRUE(allreduce_element_ok(12.0f, 12));
  EXPECT_FALSE(allreduce_element_ok(13.0f, 12));
  EXPECT_FALSE(allreduce_element_ok(-12.0f, 12));
}

}  // namespace
}  // namespace gpuqual::kernels
