// memtest on a real GPU: a healthy pass finds nothing over a capped region; a bit flipped
// behind the kernels' back (after the write step) is caught at its word with its bit; the
// memtest check end to end over 90 % of free memory.
#include <cuda_runtime_api.h>

#include "device/memtest/memtest_runner.hpp"
#include "gpu_test_support.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

MemtestConfig small_config() {
  MemtestConfig c;
  c.max_bytes = 256ULL << 20;
  c.chunk_bytes = 64ULL << 20;
  return c;
}

TEST(GpuMemtest, HealthyRegionHasNoErrors) {
  GPUQUAL_REQUIRE_GPU();
  const MemtestRunResult r = run_memtest(small_config(), {});
  EXPECT_EQ(r.bytes_tested, 256ULL << 20);
  EXPECT_EQ(r.passes_completed, 1U);
  EXPECT_EQ(r.total_errors(), 0U);
  EXPECT_EQ(r.patterns.size(), all_memtest_patterns().size());
}

TEST(GpuMemtest, PlantedFlipCaughtAtItsWordAndBit) {
  GPUQUAL_REQUIRE_GPU();
  MemtestConfig c = small_config();
  c.patterns = {MemtestPattern::random_sequence, MemtestPattern::own_address};
  int chunk = 0;
  const auto corrupt = [&chunk](MemtestPattern, std::uint64_t* words, std::uint64_t) {
    if (chunk++ != 1) return;  // the second chunk of the first pattern: global word 8M + 12345
    std::uint64_t v = 0;
    ASSERT_EQ(cudaMemcpy(&v, words + 12345, 8, cudaMemcpyDeviceToHost), cudaSuccess);
    v ^= 1ULL << 37;
    ASSERT_EQ(cudaMemcpy(words + 12345, &v, 8, cudaMemcpyHostToDevice), cudaSuccess);
  };
  const MemtestRunResult r = run_memtest(c, {}, corrupt);
  ASSERT_EQ(r.patterns[0].errors, 1U);
  EXPECT_EQ(r.patterns[1].errors, 0U);
  const auto& e = r.patterns[0].first_errors.at(0);
  EXPECT_EQ(e.index, (64ULL << 20) / 8 + 12345);
  EXPECT_EQ(flipped_bits(e.expected, e.observed), std::vector<int>{37});
}

TEST(GpuMemtest, CheckPassesOnAHealthyGpu) {
  GPUQUAL_REQUIRE_GPU();
  CheckContext ctx;
  ctx.gpus = {0};
  ctx.params = {{"fraction_of_free", 0.9}, {"passes", 1}};
  ctx.budget_s = 120;
  const CheckResult r = CheckRegistry::instance().find("memtest")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_TRUE(r.findings.empty());
  bool bytes = false;
  for (const auto& m : r.metrics) {
    if (m.name == "memtest.bytes_tested") {
      bytes = true;
      EXPECT_EQ(m.unit, "bytes");
      EXPECT_GT(m.median, 0);
    }
  }
  EXPECT_TRUE(bytes);
}

}  // namespace
}  // namespace gpuqual
