// A short burn-in on a real GPU: products bit-identical across iterations, a TFLOP/s series, an
// interleaved memtest pass without errors; a corrupted output is caught at its iteration; the
// burnin check end to end with its telemetry side file.
#include <cuda_runtime_api.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "device/burnin/burnin_runner.hpp"
#include "gpu_test_support.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

BurninConfig short_burnin() {
  BurninConfig c;
  c.size = 2048;
  c.duration_s = 3;
  c.window_s = 0.2;
  c.memtest_every_s = 1;
  c.memtest.max_bytes = 128ULL << 20;
  c.memtest.chunk_bytes = 64ULL << 20;
  return c;
}

TEST(GpuBurnin, HealthyGpuGivesIdenticalResults) {
  GPUQUAL_REQUIRE_GPU();
  const BurninGpuResult r = run_burnin(short_burnin(), {});
  EXPECT_GT(r.gemms, 10U);
  EXPECT_EQ(r.compare.mismatches(), 0U) << r.compare.describe();
  EXPECT_EQ(r.compare.iterations(), r.gemms);
  EXPECT_GT(r.tflops.percentile(50), 1.0);
  EXPECT_GE(r.memtest_runs, 1U);
  EXPECT_EQ(r.memtest.total_errors(), 0U);
  EXPECT_FALSE(r.stopped);
  EXPECT_GE(r.elapsed_s, 3.0);
}

// Burn-in at the canonical size, after its warm-up, holds the class's BF16 floor (where the
// class has one).
TEST(GpuBurnin, Bf16SeriesMeetsTheClassFloor) {
  GPUQUAL_REQUIRE_GPU();
  // A class without floors is held to the unit-error bound (1 TFLOP/s), still at 8192.
  BurninConfig c;
  c.size = kGemmCanonicalSize;
  std::string whose;
  const double floor =
      gpu_test::floor_or(gpu_test::gpu0_floors(), gemm_metric_name(c.precision, c.size), 1.0, &whose);
  c.duration_s = 3;
  c.memtest_every_s = 0;
  const BurninGpuResult r = run_burnin(c, {});
  EXPECT_EQ(r.compare.mismatches(), 0U) << r.compare.describe();
  EXPECT_GE(r.tflops.percentile(50), floor) << "burn-in BF16 under the " << whose;
  std::cout << "[ INFO ] burn-in BF16 8192 median window " << r.tflops.percentile(50) << " TFLOP/s\n";
}

TEST(GpuBurnin, CorruptedOutputCaughtAtItsIteration) {
  GPUQUAL_REQUIRE_GPU();
  BurninConfig c = short_burnin();
  c.duration_s = 1;
  c.memtest_every_s = 0;
  const auto corrupt = [](std::uint64_t iteration, void* out, std::uint64_t) {
    if (iteration != 5) return;
    unsigned char byte = 0;
    ASSERT_EQ(cudaMemcpy(&byte, static_cast<unsigned char*>(out) + 1000, 1, cudaMemcpyDeviceToHost),
              cudaSuccess);
    byte ^= 0x10;
    ASSERT_EQ(cudaMemcpy(static_cast<unsigned char*>(out) + 1000, &byte, 1, cudaMemcpyHostToDevice),
              cudaSuccess);
  };
  const BurninGpuResult r = run_burnin(c, {}, {}, corrupt);
  EXPECT_EQ(r.compare.mismatches(), 1U) << r.compare.describe();
  EXPECT_EQ(r.compare.first_mismatch_iteration(), 5U);
}

TEST(GpuBurnin, CheckEndToEndWithTelemetrySideFile) {
  GPUQUAL_REQUIRE_GPU();
  const std::string dir = ::testing::TempDir() + "/burnin-side";
  std::filesystem::create_directories(dir);
  CheckContext ctx;
  ctx.gpus = {0};
  ctx.side_dir = dir;
  ctx.budget_s = 30;
  ctx.params = {{"duration_s", 4}, {"size", 4096}, {"memtest_every_s", 2}, {"memtest_max_mib", 256}};
  const CheckResult r = CheckRegistry::instance().find("burnin")->make()->run(ctx);
  EXPECT_TRUE(r.status == Status::pass || r.status == Status::warn)
      << to_string(r.status) << ": " << r.reason;
  bool tflops = false;
  for (const auto& m : r.metrics) tflops = tflops || m.name == "burnin.bf16.tflops";
  EXPECT_TRUE(tflops);
  ASSERT_EQ(r.attributes.count("burnin.telemetry_file"), 1U);
  std::ifstream in(r.attributes.at("burnin.telemetry_file"));
  std::string line;
  int lines = 0;
  while (std::getline(in, line)) ++lines;
  EXPECT_GE(lines, 3);
  for (const auto& [k, v] : r.attributes) std::cout << "[ INFO ] " << k << " = " << v << "\n";
}

TEST(GpuBurnin, StopBeforeTheMinimumIsAnError) {
  GPUQUAL_REQUIRE_GPU();
  std::atomic<bool> stop{false};
  CheckContext ctx;
  ctx.gpus = {0};
  ctx.stop_requested = &stop;
  ctx.params = {{"duration_s", 60}, {"size", 2048}, {"memtest_every_s", 0}};
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::seconds(2));
    stop = true;
  });
  const CheckResult r = CheckRegistry::instance().find("burnin")->make()->run(ctx);
  stopper.join();
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find("stopped after"), std::string::npos) << r.reason;
  EXPECT_FALSE(r.metrics.empty());  // what was measured is kept
}

TEST(GpuBurnin, WrongFirstProductIsCaughtAgainstTheHostReference) {
  GPUQUAL_REQUIRE_GPU();
  BurninConfig c = short_burnin();
  c.duration_s = 1;
  c.memtest_every_s = 0;
  // Flip an exponent bit of D[0,0] (a corner: always among the sampled elements) in product 0.
  const auto corrupt = [](std::uint64_t iteration, void* out, std::uint64_t) {
    if (iteration != 0) return;
    unsigned char byte = 0;
    ASSERT_EQ(cudaMemcpy(&byte, static_cast<unsigned char*>(out) + 1, 1, cudaMemcpyDeviceToHost),
              cudaSuccess);
    byte ^= 0x40;
    ASSERT_EQ(cudaMemcpy(static_cast<unsigned char*>(out) + 1, &byte, 1, cudaMemcpyHostToDevice),
              cudaSuccess);
  };
  const BurninGpuResult r = run_burnin(c, {}, {}, corrupt);
  EXPECT_FALSE(r.first_product.passed()) << r.first_product.summary();
  EXPECT_GE(r.first_product.wrong, 1);
  EXPECT_FALSE(r.compare.reference().has_value());  // a wrong product never becomes the reference
  const BurninGpuResult ok = run_burnin(c, {}, {}, {});
  EXPECT_TRUE(ok.first_product.passed()) << ok.first_product.summary();
  EXPECT_EQ(ok.compare.mismatches(), 0u);
}

}  // namespace
}  // namespace gpuqual
