// GEMM on a real GPU: every precision the GPU has gives a verified answer and a rate within sane
// bounds; a planted corruption of the output is caught. Skips without a GPU.
#include <cuda_runtime_api.h>

#include <map>

#include "device/gemm/gemm_runner.hpp"
#include "device/measure/measure_params.hpp"
#include "gpu_test_support.hpp"

namespace gpuqual {
namespace {

// Generous bounds: above what any GPU does at n = 2048 from below, twice the fastest datasheet above.
const std::map<GemmPrecision, std::pair<double, double>> kSane = {
    {GemmPrecision::fp64, {0.05, 200}}, {GemmPrecision::fp32, {0.5, 300}}, {GemmPrecision::tf32, {1, 3000}},
    {GemmPrecision::fp16, {1, 6000}},   {GemmPrecision::bf16, {1, 6000}},  {GemmPrecision::fp8, {1, 12000}},
    {GemmPrecision::int8, {1, 12000}},
};

TEST(GpuGemm, EveryPrecisionIsVerifiedAndSane) {
  GPUQUAL_REQUIRE_GPU();
  cudaDeviceProp prop{};
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  int ran = 0;
  for (GemmPrecision p : all_gemm_precisions()) {
    if (auto why = gemm_skip_reason(p, {prop.major, prop.minor})) {
      std::cout << "[ INFO ] " << to_string(p) << " skipped: " << *why << "\n";
      continue;
    }
    GemmRunConfig c;
    c.precision = p;
    c.size = 2048;
    c.seed = 3;
    c.measure = gpu_test::short_measure();
    const GemmRunResult r = run_gemm(c, {});
    ++ran;
    EXPECT_TRUE(r.check.passed()) << to_string(p) << ": " << r.check.summary();
    ASSERT_FALSE(r.measure.seconds_per_op.empty());
    const Metric m =
        rate_metric(gemm_metric_name(p, c.size), gemm_metric_unit(p), 0, r.measure, r.flops_per_op, 1e12);
    const auto [lo, hi] = kSane.at(p);
    EXPECT_GT(m.median, lo) << to_string(p);
    EXPECT_LT(m.median, hi) << to_string(p);
    std::cout << "[ INFO ] " << m.name << " " << m.median << " " << m.unit << " (" << r.library << ", CV "
              << m.cv * 100 << " %, n " << m.n() << ", worst error/allowed " << r.check.worst_ratio
              << ", rel RMS " << r.check.rel_rms_error << ")\n";
  }
  EXPECT_GT(ran, 0);
}

// The class floor (baselines/floors/<class>.yaml, tests/support/class_floors.hpp) at the canonical 8192^3,
// after the dense-GEMM warm-up, so a real shortfall (a throttled or slow GPU) fails here and not only in a
// baseline.
TEST(GpuGemm, Bf16MeetsTheClassFloor) {
  GPUQUAL_REQUIRE_GPU();
  // A class without floors is held to the unit-error bound (kSane), still at 8192^3 and verified.
  GemmRunConfig c;
  c.precision = GemmPrecision::bf16;
  c.size = kGemmCanonicalSize;
  std::string whose;
  const double floor = gpu_test::floor_or(gpu_test::gpu0_floors(), gemm_metric_name(c.precision, c.size),
                                          kSane.at(GemmPrecision::bf16).first, &whose);
  c.measure = gpu_test::short_measure();
  c.measure.warmup_s = kDenseGemmWarmupS;
  c.measure.budget_s = 4;
  c.measure.min_sample_s = 0.01;
  const GemmRunResult r = run_gemm(c, {});
  EXPECT_TRUE(r.check.passed()) << r.check.summary();
  const Metric m =
      rate_metric(gemm_metric_name(c.precision, c.size), "TFLOP/s", 0, r.measure, r.flops_per_op, 1e12);
  EXPECT_GE(m.median, floor) << "BF16 8192^3 under the " << whose;
  std::cout << "[ INFO ] " << m.name << " " << m.median << " TFLOP/s (" << whose << " " << floor << ", "
            << r.library << ", CV " << m.cv * 100 << " %)\n";
}

TEST(GpuGemm, PlantedCorruptionOfTheOutputIsCaught) {
  GPUQUAL_REQUIRE_GPU();
  GemmRunConfig c;
  c.precision = GemmPrecision::bf16;
  c.size = 1024;
  c.measure = gpu_test::short_measure();
  // Zero the first column of D (2 bytes per BF16 element): the (0,0) and (M-1,0) corners are sampled.
  const GemmRunResult r = run_gemm(c, {}, [](void* d, std::uint64_t m, std::uint64_t) {
    ASSERT_EQ(cudaMemset(d, 0, m * 2), cudaSuccess);
  });
  EXPECT_FALSE(r.check.passed());
  EXPECT_GE(r.check.wrong, 2);
  EXPECT_NE(r.check.first_wrong.find("D[0,0]"), std::string::npos) << r.check.first_wrong;
}

TEST(GpuGemm, AGemmThatDidNotRunIsCaught) {
  GPUQUAL_REQUIRE_GPU();
  GemmRunConfig c;
  c.precision = GemmPrecision::fp32;
  c.size = 512;
  c.measure = gpu_test::short_measure();
  // Overwrite all of D with the 0xFF fill it started from: as if the product never ran.
  const GemmRunResult r = run_gemm(c, {}, [](void* d, std::uint64_t m, std::uint64_t n) {
    ASSERT_EQ(cudaMemset(d, 0xFF, m * n * 4), cudaSuccess);
  });
  EXPECT_FALSE(r.check.passed());
  EXPECT_EQ(r.check.wrong, r.check.checked);  // NaN everywhere
}

}  // namespace
}  // namespace gpuqual
