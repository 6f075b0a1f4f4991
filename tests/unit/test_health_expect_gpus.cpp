// `run` hands health the GPU count the node should have (docs/compare.md, "No false pass"): check_params_for
// adds expect_gpus to health's params unless the suite set it, and to no other check.
#include <gtest/gtest.h>

#include "runner/run/suite_runner.hpp"

using namespace gpuqual;

TEST(HealthExpectGpus, RunHandsHealthTheExpectedCount) {
  RunnerSettings settings;
  settings.expect_gpus = 8;
  SuiteCheck health;
  health.check = "health";
  health.params = {{"sample_s", 1}};
  const nlohmann::json p = check_params_for(health, settings);
  EXPECT_EQ(p.at("expect_gpus"), 8);
  EXPECT_EQ(p.at("sample_s"), 1);
  // The suite's own value wins.
  health.params["expect_gpus"] = 4;
  EXPECT_EQ(check_params_for(health, settings).at("expect_gpus"), 4);
  // Other checks are untouched; no expectation adds nothing.
  SuiteCheck gemm;
  gemm.check = "gemm";
  EXPECT_FALSE(check_params_for(gemm, settings).contains("expect_gpus"));
  settings.expect_gpus.reset();
  health.params.erase("expect_gpus");
  EXPECT_FALSE(check_params_for(health, settings).contains("expect_gpus"));
}
