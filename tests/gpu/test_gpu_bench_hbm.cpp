// HBM bandwidth on a real GPU: each kernel's answer verified (every element on the GPU, a host
// replay, the exact read sum) and its bandwidth within sane bounds; planted corruptions caught.
#include <cuda_runtime_api.h>

#include "device/hbm/hbm_runner.hpp"
#include "gpu_test_support.hpp"

namespace gpuqual {
namespace {

TEST(GpuHbm, EveryKernelIsVerifiedAndSane) {
  GPUQUAL_REQUIRE_GPU();
  const auto floors = gpu_test::gpu0_floors();
  HbmConfig c;
  c.measure = gpu_test::short_measure();
  const HbmRunResult run = run_hbm(c, {});
  EXPECT_GE(run.arrays.bytes, 4 * run.l2_bytes);
  ASSERT_EQ(run.kernels.size(), 6u);
  for (const auto& k : run.kernels) {
    EXPECT_TRUE(k.ok()) << to_string(k.kernel) << ": " << k.problem();
    const Metric m = rate_metric(hbm_metric_name(k.kernel), "GB/s", 0, k.measure, k.bytes_per_op, 1e9);
    EXPECT_GT(m.median, 50.0) << m.name;     // slower than any HBM/GDDR part
    EXPECT_LT(m.median, 20000.0) << m.name;  // faster than any memory: the L2 was measured
    // Each kernel the floors file names (copy, scale, add, triad) holds its class floor.
    if (const auto floor = floors ? floors->of(m.name) : std::nullopt) {
      EXPECT_GE(m.median, *floor) << m.name << " under the " << floors->slug << " floor (" << floors->source
                                  << ")";
    }
    if (k.kernel == StreamKernel::read)
      EXPECT_TRUE(k.sum_checked);
    else
      EXPECT_GT(k.replay.checked, 0);
    std::cout << "[ INFO ] " << m.name << " " << m.median << " GB/s (CV " << m.cv * 100 << " %, n " << m.n()
              << ", arrays " << run.arrays.bytes << " B, L2 " << run.l2_bytes << " B, " << run.blocks << "x"
              << run.threads << ")\n";
  }
}

TEST(GpuHbm, PlantedCorruptionsAreCaught) {
  GPUQUAL_REQUIRE_GPU();
  HbmConfig c;
  c.kernels = {StreamKernel::triad, StreamKernel::read};
  c.measure = gpu_test::short_measure();
  const std::uint64_t bad = 12345;
  const HbmRunResult run = run_hbm(c, {}, [&](StreamKernel k, double* a, double*, double* d, std::uint64_t) {
    // triad: one output element zeroed; read: one input element changed after the timed sum,
    // so the GPU-side check of a (against the generator) must catch it.
    double* target = k == StreamKernel::triad ? d : a;
    ASSERT_EQ(cudaMemset(target + bad, 0, sizeof(double)), cudaSuccess);
  });
  ASSERT_EQ(run.kernels.size(), 2u);
  EXPECT_FALSE(run.kernels[0].ok());
  EXPECT_EQ(run.kernels[0].device_mismatches, 1u);
  EXPECT_EQ(run.kernels[0].first_mismatch, bad);
  EXPECT_FALSE(run.kernels[1].ok());
  EXPECT_GE(run.kernels[1].device_mismatches, 1u);
  EXPECT_NE(run.kernels[1].problem().find("12345"), std::string::npos) << run.kernels[1].problem();
}

}  // namespace
}  // namespace gpuqual
