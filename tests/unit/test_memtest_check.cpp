// The memtest check without a GPU: bad parameters are an error naming the key; good ones get
// as far as the CUDA probe, and the result is the runtime's reason, promptly.
#include <gtest/gtest.h>

#include <chrono>

#include "device/measure/measure_gpus.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

CheckResult run_memtest_check(nlohmann::json params) {
  CheckContext ctx;
  ctx.params = std::move(params);
  ctx.budget_s = 5;
  return CheckRegistry::instance().find("memtest")->make()->run(ctx);
}

TEST(MemtestCheck, BadParametersNameTheKey) {
  const std::vector<std::pair<nlohmann::json, const char*>> cases = {
      {{{"patterns", {"walking_ones", "checkerboard"}}}, "checkerboard"},
      {{{"fraction_of_free", 1.5}}, "fraction_of_free"},
      {{{"passes", 0}}, "passes"},
      {{{"typo", 1}}, "typo"},
  };
  for (const auto& [params, mentions] : cases) {
    const CheckResult r = run_memtest_check(params);
    EXPECT_EQ(r.status, Status::error) << params.dump();
    EXPECT_NE(r.reason.find("bad parameters"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find(mentions), std::string::npos) << r.reason;
  }
}

TEST(MemtestCheck, WithoutAGpuReportsTheCudaReasonFast) {
  const CudaProbe probe = probe_cuda();
  if (probe.ok()) GTEST_SKIP() << "a GPU is visible: tests/gpu runs memtest";
  const auto t0 = std::chrono::steady_clock::now();
  const CheckResult r = run_memtest_check({{"fraction_of_free", 0.9}, {"passes", 1}});
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
  EXPECT_TRUE(r.status == Status::error || r.status == Status::skip) << to_string(r.status);
  EXPECT_EQ(r.reason, probe.reason);
  EXPECT_TRUE(r.metrics.empty());
}

}  // namespace
}  // namespace gpuqual
