// The per-thread logic the kernels run, called on the CPU: the GEMM input generator (never zero,
// exactly representable in its storage format, full-entropy mantissas), the per-element GEMM
// rule, the STREAM arithmetic and its exactness, the copy pattern.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <vector>

#include "kernels/copy_pattern.cuh"
#include "kernels/gemm_input.cuh"
#include "kernels/hbm_ops.cuh"

namespace gpuqual::kernels {
namespace {

// True when |v| = (1 + f/2^m) * 2^e exactly, with f < 2^m.
bool has_at_most_mantissa_bits(double v, int m) {
  int e = 0;
  const double frac = std::frexp(std::fabs(v), &e);  // [0.5, 1)
  const double scaled = std::ldexp(frac, m + 1);     // integer iff <= m bits after the leading 1
  return scaled == std::floor(scaled);
}

TEST(GemmInput, ValuesAreNonZeroBoundedAndExactInTheirFormat) {
  for (auto kind : {GemmInputKind::f64, GemmInputKind::f32, GemmInputKind::tf32, GemmInputKind::f16,
                    GemmInputKind::bf16, GemmInputKind::e4m3}) {
    const int m = gemm_input_mantissa_bits(kind);
    for (std::uint64_t i = 0; i < 20000; ++i) {
      const double v = gemm_input_value(kind, 42, i % 2, i);
      ASSERT_NE(v, 0.0);
      ASSERT_GE(std::fabs(v), 0.5);
      ASSERT_LT(std::fabs(v), 2.0);
      ASSERT_TRUE(has_at_most_mantissa_bits(v, m)) << "kind " << static_cast<int>(kind) << " value " << v;
    }
  }
}

TEST(GemmInput, Bf16AndFp32ValuesSurviveTheConversionUnchanged) {
  for (std::uint64_t i = 0; i < 5000; ++i) {
    const double v = gemm_input_value(GemmInputKind::bf16, 7, 0, i);
    const float f = static_cast<float>(v);
    std::uint32_t bits = 0;
    std::memcpy(&bits, &f, sizeof bits);
    ASSERT_EQ(bits & 0xFFFFu, 0u) << v;  // bf16 is the upper half of an fp32
    ASSERT_EQ(static_cast<double>(f), v);
    const double w = gemm_input_value(GemmInputKind::f32, 7, 0, i);
    ASSERT_EQ(static_cast<double>(static_cast<float>(w)), w);
  }
}

TEST(GemmInput, MantissasUseEveryBitAndBothSignsAndExponents) {
  // Full-entropy inputs: GEMMs on low-entropy data draw less power and run faster than real work.
  std::set<std::uint64_t> fractions;
  int negative = 0, small = 0;
  const int n = 4096;
  for (int i = 0; i < n; ++i) {
    const double v = gemm_input_value(GemmInputKind::bf16, 1, 0, static_cast<std::uint64_t>(i));
    negative += v < 0;
    small += std::fabs(v) < 1.0;
    int e = 0;
    fractions.insert(static_cast<std::uint64_t>(std::ldexp(std::frexp(std::fabs(v), &e), 8)) & 0x7F);
  }
  EXPECT_EQ(fractions.size(), 128u);  // all 2^7 BF16 mantissas appear
  EXPECT_NEAR(negative, n / 2, n / 10);
  EXPECT_NEAR(small, n / 2, n / 10);
}

TEST(GemmInput, Int8InputsAreNonZeroIntegersInRange) {
  std::set<int> seen;
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const double v = gemm_input_value(GemmInputKind::i8, 3, 1, i);
    ASSERT_EQ(v, std::floor(v));
    ASSERT_NE(v, 0.0);
    ASSERT_GE(v, -127.0);
    ASSERT_LE(v, 127.0);
    seen.insert(static_cast<int>(v));
  }
  EXPECT_EQ(seen.size(), 254u);  // every value of [-127, 127] but 0
}

TEST(GemmInput, DeterministicPerSeedMatrixAndIndex) {
  EXPECT_EQ(gemm_input_value(GemmInputKind::f16, 1, 0, 5), gemm_input_value(GemmInputKind::f16, 1, 0, 5));
  int differ_seed = 0, differ_matrix = 0;
  for (std::uint64_t i = 0; i < 1000; ++i) {
    differ_seed +=
        gemm_input_value(GemmInputKind::f32, 1, 0, i) != gemm_input_value(GemmInputKind::f32, 2, 0, i);
    differ_matrix +=
        gemm_input_value(GemmInputKind::f32, 1, 0, i) != gemm_input_value(GemmInputKind::f32, 1, 1, i);
  }
  EXPECT_GT(differ_seed, 990);
  EXPECT_GT(differ_matrix, 990);
}

TEST(GemmElementRule, AcceptsWithinAndRejectsBeyondTheBound) {
  const GemmTolerance tol{0.5e-3, 1e-5};  // allowed = 2*0.5e-3*|ref| + 1e-5*abs_terms
  const double ref = 100, terms = 10000;  // allowed = 0.1 + 0.1 = 0.2
  EXPECT_TRUE(gemm_element_ok(100, ref, terms, tol));
  EXPECT_TRUE(gemm_element_ok(100.199, ref, terms, tol));
  EXPECT_TRUE(gemm_element_ok(99.801, ref, terms, tol));
  EXPECT_FALSE(gemm_element_ok(100.201, ref, terms, tol));
  EXPECT_FALSE(gemm_element_ok(99.799, ref, terms, tol));
  EXPECT_FALSE(gemm_element_ok(-100, ref, terms, tol));  // a flipped sign
  EXPECT_FALSE(gemm_element_ok(0, ref, terms, tol));     // a zeroed element
}

TEST(GemmElementRule, NanAndInfinityNeverPass) {
  const GemmTolerance loose{1.0, 1.0};
  EXPECT_FALSE(gemm_element_ok(std::nan(""), 1, 1, loose));
  EXPECT_FALSE(gemm_element_ok(INFINITY, 1, 1, loose));
  EXPECT_FALSE(gemm_element_ok(-INFINITY, 1, 1, loose));
}

TEST(GemmElementRule, ZeroToleranceMeansExact) {
  const GemmTolerance exact{0, 0};
  EXPECT_TRUE(gemm_element_ok(12345, 12345, 99999, exact));
  EXPECT_FALSE(gemm_element_ok(12346, 12345, 99999, exact));
}

TEST(StreamOps, InputsAreInOneToTwoOnA2ToTheMinus20Grid) {
  for (std::uint64_t i = 0; i < 20000; ++i) {
    const double v = stream_init_value(9, i % 2, i);
    ASSERT_GE(v, 1.0);
    ASSERT_LT(v, 2.0);
    const double scaled = v * 1048576.0;
    ASSERT_EQ(scaled, std::floor(scaled));
  }
  EXPECT_NE(stream_init_value(9, 0, 17), stream_init_value(9, 1, 17));  // a and b differ
}

TEST(StreamOps, SumIsExactInAnyOrder) {
  // The read-only kernel sums in a GPU-dependent order; on the 2^-20 grid every order gives the
  // same double, which is what lets the check compare with ==.
  std::vector<double> v;
  for (std::uint64_t i = 0; i < 200000; ++i) v.push_back(stream_init_value(5, 0, i));
  double forward = 0, backward = 0, pairwise = 0;
  for (double x : v) forward += x;
  for (auto it = v.rbegin(); it != v.rend(); ++it) backward += *it;
  std::vector<double> w = v;
  std::mt19937_64 rng(1);
  std::shuffle(w.begin(), w.end(), rng);
  while (w.size() > 1) {
    std::vector<double> next;
    for (std::size_t i = 0; i + 1 < w.size(); i += 2) next.push_back(w[i] + w[i + 1]);
    if (w.size() % 2) next.push_back(w.back());
    w.swap(next);
  }
  pairwise = w[0];
  EXPECT_EQ(forward, backward);
  EXPECT_EQ(forward, pairwise);
}

TEST(StreamOps, ExpectedOutputsPerKernel) {
  const StreamScalars sc{0.4, 1.5, 0.25};
  bool ok = false;
  EXPECT_EQ(stream_expected_output(StreamKernel::copy, 1.25, 1.5, 3, sc, &ok), 1.25);
  EXPECT_TRUE(ok);
  EXPECT_EQ(stream_expected_output(StreamKernel::scale, 1.25, 1.5, 3, sc, &ok), 0.4 * 1.25);
  EXPECT_EQ(stream_expected_output(StreamKernel::add, 1.25, 1.5, 3, sc, &ok), 2.75);
  EXPECT_EQ(stream_expected_output(StreamKernel::triad, 1.25, 1.5, 3, sc, &ok), std::fma(0.4, 1.5, 1.25));
  EXPECT_EQ(stream_expected_output(StreamKernel::write, 0, 0, 4, sc, &ok), 1.5 + 4 * 0.25);
  EXPECT_TRUE(ok);
  stream_expected_output(StreamKernel::read, 1, 1, 0, sc, &ok);
  EXPECT_FALSE(ok);  // read writes no output
}

TEST(StreamOps, TriadIsOneRoundingNotTwo) {
  // An fma and a multiply-then-add differ for some inputs; the kernel and the replay must both
  // use the fma (stream_triad), or the bit-exact check would flag correct hardware.
  int differ = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    const double a = stream_init_value(1, 0, i), b = stream_init_value(1, 1, i);
    const double fused = stream_triad(a, b, 0.4);
    EXPECT_EQ(fused, std::fma(0.4, b, a));
    volatile double product = 0.4 * b;  // volatile: no contraction
    differ += fused != a + product;
  }
  EXPECT_GT(differ, 0);
}

TEST(StreamOps, BytesPerElementCountReadsAndWrites) {
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::copy), 16);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::scale), 16);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::add), 24);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::triad), 24);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::read), 8);
  EXPECT_EQ(stream_bytes_per_element(StreamKernel::write), 8);
}

TEST(CopyPattern, DeterministicAndSeedDependent) {
  EXPECT_EQ(copy_pattern_word(1, 100), copy_pattern_word(1, 100));
  std::set<std::uint64_t> words;
  int differ = 0;
  for (std::uint64_t i = 0; i < 10000; ++i) {
    words.insert(copy_pattern_word(1, i));
    differ += copy_pattern_word(1, i) != copy_pattern_word(2, i);
  }
  EXPECT_EQ(words.size(), 10000u);  // no repeats: a shifted or duplicated block is caught
  EXPECT_EQ(differ, 10000);
}

}  // namespace
}  // namespace gpuqual::kernels
