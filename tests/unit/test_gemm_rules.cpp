// The GEMM check's pure rules: applicability by compute capability, FLOP accounting, metric
// names, and answer checking with planted errors against references from the real generator,
// including emulated low-precision accumulation that must pass.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "device/gemm/gemm_precision.hpp"
#include "device/gemm/gemm_verify.hpp"

namespace gpuqual {
namespace {

TEST(GemmApplicability, Fp8NeedsAdaOrHopper) {
  const auto a100 = gemm_skip_reason(GemmPrecision::fp8, {8, 0});
  ASSERT_TRUE(a100.has_value());
  EXPECT_NE(a100->find("8.9"), std::string::npos) << *a100;
  EXPECT_NE(a100->find("8.0"), std::string::npos) << *a100;
  EXPECT_TRUE(gemm_skip_reason(GemmPrecision::fp8, {8, 6}).has_value());
  EXPECT_FALSE(gemm_skip_reason(GemmPrecision::fp8, {8, 9}).has_value());   // L40S
  EXPECT_FALSE(gemm_skip_reason(GemmPrecision::fp8, {9, 0}).has_value());   // H100/H200
  EXPECT_FALSE(gemm_skip_reason(GemmPrecision::fp8, {10, 0}).has_value());  // B200
}

TEST(GemmApplicability, Tf32AndBf16NeedAmpere) {
  for (auto p : {GemmPrecision::tf32, GemmPrecision::bf16}) {
    EXPECT_TRUE(gemm_skip_reason(p, {7, 5}).has_value());
    EXPECT_FALSE(gemm_skip_reason(p, {8, 0}).has_value());
    EXPECT_FALSE(gemm_skip_reason(p, {9, 0}).has_value());
  }
  EXPECT_TRUE(gemm_skip_reason(GemmPrecision::int8, {7, 0}).has_value());
  EXPECT_FALSE(gemm_skip_reason(GemmPrecision::int8, {7, 5}).has_value());
}

TEST(GemmApplicability, Fp64AndFp32RunEverywhere) {
  for (auto p : {GemmPrecision::fp64, GemmPrecision::fp32}) {
    EXPECT_FALSE(gemm_skip_reason(p, {5, 0}).has_value());
    EXPECT_FALSE(gemm_skip_reason(p, {12, 0}).has_value());
  }
  // Every precision runs on an H200.
  for (auto p : all_gemm_precisions()) EXPECT_FALSE(gemm_skip_reason(p, {9, 0}).has_value()) << to_string(p);
}

TEST(GemmApplicability, ComputeCapabilityParsing) {
  auto cc = parse_compute_capability("9.0");
  ASSERT_TRUE(cc);
  EXPECT_EQ(cc->major, 9);
  EXPECT_EQ(cc->minor, 0);
  cc = parse_compute_capability("12.1");
  ASSERT_TRUE(cc);
  EXPECT_EQ(cc->major, 12);
  EXPECT_EQ(cc->minor, 1);
  for (const char* bad : {"", "9", "9.", ".0", "9.0a", "x.y", "-1.0", "9..0"}) {
    EXPECT_FALSE(parse_compute_capability(bad).has_value()) << bad;
  }
}

TEST(GemmAccounting, TwoFlopsPerTerm) {
  EXPECT_DOUBLE_EQ(gemm_flops(8192, 8192, 8192), 2.0 * 8192.0 * 8192.0 * 8192.0);
  EXPECT_DOUBLE_EQ(gemm_flops(8192, 8192, 8192), 1099511627776.0);
  EXPECT_DOUBLE_EQ(gemm_flops(2, 3, 4), 48.0);
  // 8192^3 in 1.4 ms is 785 TFLOP/s: the figure the BF16 target is stated in.
  EXPECT_NEAR(gemm_flops(8192, 8192, 8192) / 1.4e-3 / 1e12, 785.4, 0.1);
}

TEST(GemmNames, MetricNamesUnitsAndParsing) {
  EXPECT_EQ(gemm_metric_name(GemmPrecision::bf16, 8192), "gemm.bf16.tflops");
  EXPECT_EQ(gemm_metric_name(GemmPrecision::fp8, 8192), "gemm.fp8.tflops");
  EXPECT_EQ(gemm_metric_name(GemmPrecision::int8, 8192), "gemm.int8.tops");
  EXPECT_EQ(gemm_metric_name(GemmPrecision::bf16, 4096), "gemm.bf16.n4096.tflops");
  EXPECT_EQ(gemm_metric_unit(GemmPrecision::int8), "TOP/s");
  EXPECT_EQ(gemm_metric_unit(GemmPrecision::fp64), "TFLOP/s");
  for (auto p : all_gemm_precisions()) EXPECT_EQ(parse_gemm_precision(to_string(p)), p);
  EXPECT_EQ(parse_gemm_precision("fp8_e4m3"), GemmPrecision::fp8);
  EXPECT_EQ(parse_gemm_precision("e4m3"), GemmPrecision::fp8);
  EXPECT_FALSE(parse_gemm_precision("fp4").has_value());
  EXPECT_FALSE(parse_gemm_precision("BF16").has_value());
  EXPECT_EQ(all_gemm_precisions().size(), 7u);
}

TEST(GemmNames, StorageSizes) {
  EXPECT_EQ(gemm_input_bytes(GemmPrecision::fp64), 8u);
  EXPECT_EQ(gemm_input_bytes(GemmPrecision::tf32), 4u);
  EXPECT_EQ(gemm_input_bytes(GemmPrecision::bf16), 2u);
  EXPECT_EQ(gemm_input_bytes(GemmPrecision::fp8), 1u);
  EXPECT_EQ(gemm_output_bytes(GemmPrecision::fp8), 2u);   // BF16 output
  EXPECT_EQ(gemm_output_bytes(GemmPrecision::int8), 4u);  // INT32 output
}

TEST(GemmSamples, CornersFirstThenSeededDistinctPoints) {
  const auto pts = gemm_sample_points(1000, 700, 64, 3);
  ASSERT_EQ(pts.size(), 64u);
  EXPECT_EQ(pts[0].row, 0u);
  EXPECT_EQ(pts[0].col, 0u);
  EXPECT_EQ(pts[1].row, 999u);
  EXPECT_EQ(pts[1].col, 699u);
  std::set<std::pair<std::uint64_t, std::uint64_t>> seen;
  for (const auto& p : pts) {
    EXPECT_LT(p.row, 1000u);
    EXPECT_LT(p.col, 700u);
    seen.insert({p.row, p.col});
  }
  EXPECT_EQ(seen.size(), pts.size());
  const auto again = gemm_sample_points(1000, 700, 64, 3);
  EXPECT_EQ(again.back().row, pts.back().row);
  EXPECT_EQ(gemm_sample_points(2, 2, 100, 1).size(), 4u);  // cannot sample more than exist
  EXPECT_EQ(gemm_output_index({3, 2}, 1000), 2003u);
}

// A small GEMM's sampled references, and a "GPU result" made by `emulate(row, col)`.
struct Case {
  GemmPrecision p;
  std::uint64_t k = 512;
  std::vector<GemmPoint> points;
  std::vector<GemmReference> refs;
  explicit Case(GemmPrecision prec, std::uint64_t kk = 512) : p(prec), k(kk) {
    points = gemm_sample_points(kk, kk, 48, 11);
    for (const auto& pt : points) refs.push_back(gemm_reference(p, 5, k, pt));
  }
  std::vector<double> exact() const {
    std::vector<double> v;
    for (const auto& r : refs) v.push_back(r.value);
    return v;
  }
};

double round_to_bf16(double v) {
  float f = static_cast<float>(v);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  bits = (bits + 0x7FFFu + ((bits >> 16) & 1u)) & 0xFFFF0000u;  // round to nearest even
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

TEST(GemmVerify, ReferenceMatchesABruteForceProduct) {
  const GemmPoint pt{3, 7};
  const std::uint64_t k = 64;
  const auto ref = gemm_reference(GemmPrecision::bf16, 5, k, pt);
  double sum = 0, abs_sum = 0;
  for (std::uint64_t i = 0; i < k; ++i) {
    const double a = kernels::gemm_input_value(kernels::GemmInputKind::bf16, 5, 0, i + 3 * k);
    const double b = kernels::gemm_input_value(kernels::GemmInputKind::bf16, 5, 1, i + 7 * k);
    sum += a * b;
    abs_sum += std::fabs(a * b);
  }
  EXPECT_EQ(ref.value, sum);
  EXPECT_EQ(ref.abs_terms, abs_sum);
  EXPECT_GT(ref.abs_terms, std::fabs(ref.value));  // random signs cancel
}

TEST(GemmVerify, ExactAnswersPassAtEveryPrecision) {
  for (auto p : all_gemm_precisions()) {
    Case c(p);
    const auto check = check_gemm_samples(p, c.k, c.points, c.exact(), c.refs);
    EXPECT_TRUE(check.passed()) << to_string(p) << ": " << check.summary();
    EXPECT_EQ(check.checked, 48);
    EXPECT_EQ(check.rel_rms_error, 0.0);
  }
}

TEST(GemmVerify, Bf16OutputRoundingPassesForBf16ButNotForFp32) {
  Case c(GemmPrecision::bf16);
  std::vector<double> got;
  for (double v : c.exact()) got.push_back(round_to_bf16(v));
  EXPECT_TRUE(check_gemm_samples(GemmPrecision::bf16, c.k, c.points, got, c.refs).passed());
  // The same numbers claimed as an FP32 GEMM's output are far too coarse: the rule is per precision.
  Case f(GemmPrecision::fp32);
  std::vector<double> coarse;
  for (double v : f.exact()) coarse.push_back(round_to_bf16(v));
  const auto check = check_gemm_samples(GemmPrecision::fp32, f.k, f.points, coarse, f.refs);
  EXPECT_FALSE(check.passed()) << check.summary();
}

TEST(GemmVerify, Fp32AccumulationOfBf16InputsPassesAtK8192) {
  // The honest worst case of a correct GEMM: sequential FP32 accumulation over K = 8192, then
  // BF16 output rounding. The tolerance must accept it.
  const std::uint64_t k = 8192;
  const auto points = gemm_sample_points(k, k, 16, 2);
  std::vector<GemmReference> refs;
  std::vector<double> got;
  for (const auto& pt : points) {
    refs.push_back(gemm_reference(GemmPrecision::bf16, 9, k, pt));
    float acc = 0;
    for (std::uint64_t i = 0; i < k; ++i) {
      const auto a =
          static_cast<float>(kernels::gemm_input_value(kernels::GemmInputKind::bf16, 9, 0, i + pt.row * k));
      const auto b =
          static_cast<float>(kernels::gemm_input_value(kernels::GemmInputKind::bf16, 9, 1, i + pt.col * k));
      acc += a * b;
    }
    got.push_back(round_to_bf16(acc));
  }
  const auto check = check_gemm_samples(GemmPrecision::bf16, k, points, got, refs);
  EXPECT_TRUE(check.passed()) << check.summary();
  EXPECT_LT(check.worst_ratio, 1.0);
}

TEST(GemmVerify, Fp8WithLimitedAccumulatorPrecisionPasses) {
  // Hopper's FP8 tensor cores keep ~14 mantissa bits inside an MMA chain; cuBLAS promotes to
  // FP32 every 128 terms or so. Emulate that (truncating to 13 fraction bits per step).
  const std::uint64_t k = 8192;
  const auto points = gemm_sample_points(k, k, 16, 4);
  std::vector<GemmReference> refs;
  std::vector<double> got;
  auto truncate = [](double v) {
    int e = 0;
    const double f = std::frexp(v, &e);
    return std::ldexp(std::trunc(std::ldexp(f, 14)), e - 14);
  };
  for (const auto& pt : points) {
    refs.push_back(gemm_reference(GemmPrecision::fp8, 9, k, pt));
    float total = 0;
    for (std::uint64_t chunk = 0; chunk < k; chunk += 128) {
      double part = 0;
      for (std::uint64_t i = chunk; i < chunk + 128; ++i) {
        part = truncate(part +
                        kernels::gemm_input_value(kernels::GemmInputKind::e4m3, 9, 0, i + pt.row * k) *
                            kernels::gemm_input_value(kernels::GemmInputKind::e4m3, 9, 1, i + pt.col * k));
      }
      total += static_cast<float>(part);
    }
    got.push_back(round_to_bf16(total));
  }
  const auto check = check_gemm_samples(GemmPrecision::fp8, k, points, got, refs);
  EXPECT_TRUE(check.passed()) << check.summary();
}

TEST(GemmVerify, OneWrongElementIsCaughtAndNamed) {
  Case c(GemmPrecision::bf16);
  auto got = c.exact();
  got[7] = got[7] * 1.05 + 1.0;  // 5 % off: far outside BF16's rounding
  const auto check = check_gemm_samples(GemmPrecision::bf16, c.k, c.points, got, c.refs);
  EXPECT_FALSE(check.passed());
  EXPECT_EQ(check.wrong, 1);
  EXPECT_GT(check.worst_ratio, 1.0);
  const std::string where =
      "D[" + std::to_string(c.points[7].row) + "," + std::to_string(c.points[7].col) + "]";
  EXPECT_NE(check.first_wrong.find(where), std::string::npos) << check.first_wrong;
  EXPECT_NE(check.summary().find("1 of 48"), std::string::npos) << check.summary();
}

TEST(GemmVerify, ZeroedNanAndSignFlippedOutputsFail) {
  for (auto p : all_gemm_precisions()) {
    Case c(p);
    std::vector<double> zeros(c.refs.size(), 0.0);
    EXPECT_FALSE(check_gemm_samples(p, c.k, c.points, zeros, c.refs).passed()) << to_string(p);
    auto nan = c.exact();
    nan[0] = std::nan("");
    const auto n = check_gemm_samples(p, c.k, c.points, nan, c.refs);
    EXPECT_FALSE(n.passed()) << to_string(p);
    EXPECT_EQ(n.wrong, 1);
    auto flipped = c.exact();
    for (auto& v : flipped) v = -v;
    EXPECT_FALSE(check_gemm_samples(p, c.k, c.points, flipped, c.refs).passed()) << to_string(p);
  }
}

TEST(GemmVerify, Int8IsExact) {
  Case c(GemmPrecision::int8);
  auto got = c.exact();
  EXPECT_TRUE(check_gemm_samples(GemmPrecision::int8, c.k, c.points, got, c.refs).passed());
  got[3] += 1;  // off by one
  EXPECT_FALSE(check_gemm_samples(GemmPrecision::int8, c.k, c.points, got, c.refs).passed());
}

TEST(GemmVerify, UniformBiasFailsTheRmsBound) {
  // FP8's per-element bound is loose (limited accumulator precision), so an output biased 6 %
  // everywhere passes many elements one by one; the aggregate RMS bound (5 %) still fails it.
  Case c(GemmPrecision::fp8, 8192);
  auto got = c.exact();
  for (auto& v : got) v *= 1.06;
  const auto check = check_gemm_samples(GemmPrecision::fp8, c.k, c.points, got, c.refs);
  EXPECT_FALSE(check.rms_ok) << check.summary();
  EXPECT_FALSE(check.passed());
  EXPECT_LT(check.wrong, check.checked);  // the per-element rule alone would not catch them all
  EXPECT_NEAR(check.rel_rms_error, 0.06, 1e-9);
}

TEST(GemmVerify, MismatchedLengthsAreAProgrammingError) {
  Case c(GemmPrecision::fp32);
  EXPECT_THROW(check_gemm_samples(GemmPrecision::fp32, c.k, c.points, {1.0}, c.refs), std::invalid_argument);
}

TEST(GemmTolerances, TighterForWiderFormats) {
  const std::uint64_t k = 8192;
  EXPECT_LT(gemm_tolerance(GemmPrecision::fp64, k).accumulation,
            gemm_tolerance(GemmPrecision::fp32, k).accumulation);
  EXPECT_LT(gemm_tolerance(GemmPrecision::fp32, k).accumulation,
            gemm_tolerance(GemmPrecision::fp8, k).accumulation);
  EXPECT_LT(gemm_tolerance(GemmPrecision::fp16, k).output_roundoff,
            gemm_tolerance(GemmPrecision::bf16, k).output_roundoff);
  EXPECT_EQ(gemm_tolerance(GemmPrecision::int8, k).accumulation, 0.0);
  EXPECT_EQ(gemm_rms_tolerance(GemmPrecision::int8), 0.0);
  // Grows like sqrt(K).
  EXPECT_NEAR(gemm_tolerance(GemmPrecision::fp32, 4 * k).accumulation /
                  gemm_tolerance(GemmPrecision::fp32, k).accumulation,
              2.0, 1e-12);
}

}  // namespace
}  // namespace gpuqual
