// The benchmark checks (gemm, hbm, pcie, p2p) as the runner calls them, on this machine: with
// no usable GPU each returns quickly with `error` (or `skip`) and the CUDA runtime's own reason,
// never a pass and never a crash; bad suite parameters are an `error` naming the parameter.
// On a machine with a GPU the first test defers to tests/gpu (which measures for real).
#include <gtest/gtest.h>

#include <chrono>

#include "device/measure/measure_gpus.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

CheckResult run_check(const std::string& name, nlohmann::json params = nlohmann::json::object()) {
  const CheckInfo* info = CheckRegistry::instance().find(name);
  if (!info) throw std::runtime_error("check not registered: " + name);
  CheckContext ctx;
  ctx.params = std::move(params);
  ctx.budget_s = 5;
  return info->make()->run(ctx);
}

TEST(BenchChecks, RegisteredWithDescriptions) {
  for (const char* name : {"gemm", "hbm", "pcie", "p2p"}) {
    const CheckInfo* info = CheckRegistry::instance().find(name);
    ASSERT_NE(info, nullptr) << name;
    EXPECT_FALSE(info->description.empty());
    EXPECT_FALSE(info->test_only);
  }
}

TEST(BenchChecks, WithoutAGpuEachCheckSaysWhyQuickly) {
  const CudaProbe probe = probe_cuda();
  if (probe.ok())
    GTEST_SKIP() << "a GPU is visible (" << probe.device_count << "): tests/gpu measures the checks";
  for (const char* name : {"gemm", "hbm", "pcie", "p2p"}) {
    const auto t0 = std::chrono::steady_clock::now();
    const CheckResult r = run_check(name);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.name, name);
    EXPECT_TRUE(r.status == Status::error || r.status == Status::skip) << name << ": " << to_string(r.status);
    EXPECT_EQ(r.reason, probe.reason) << name;
    EXPECT_TRUE(r.metrics.empty()) << name;
    EXPECT_LT(s, 5.0) << name;
  }
  // This machine's fact (docs/architecture.md): no driver, so cudaGetDeviceCount fails with 35 -> error.
  if (!probe.no_device) {
    EXPECT_NE(probe.reason.find("cudaGetDeviceCount"), std::string::npos) << probe.reason;
    EXPECT_EQ(run_check("gemm").status, Status::error);
  }
}

TEST(BenchChecks, BadParametersAreAnErrorNamingTheParameter) {
  struct Bad {
    const char* check;
    nlohmann::json params;
    const char* mentions;
  };
  const std::vector<Bad> cases = {
      {"gemm", {{"precisions", {"bf16", "fp4"}}}, "fp4"},
      {"gemm", {{"sizes", {8192, 1000}}}, "sizes[1]"},
      {"gemm", {{"sizes", nlohmann::json::array()}}, "sizes"},
      {"gemm", {{"target_cv", -1}}, "target_cv"},
      {"gemm", {{"min_samples", 10}, {"max_samples", 5}}, "max_samples"},
      {"gemm", {{"typo_key", 1}}, "typo_key"},
      {"hbm", {{"kernels", {"triad", "nstream"}}}, "nstream"},
      {"hbm", {{"threads_per_block", 300}}, "threads_per_block"},
      {"pcie", {{"size_mib", 16}}, "size_mib"},
      {"pcie", {{"bytes", 1 << 28}}, "bytes"},  // unknown: the parameter is size_mib
      {"pcie", {{"directions", {"sideways"}}}, "sideways"},
      {"p2p", {{"bidirectional", "yes"}}, "bidirectional"},
  };
  for (const auto& c : cases) {
    const CheckResult r = run_check(c.check, c.params);
    EXPECT_EQ(r.status, Status::error) << c.check << " " << c.params.dump();
    EXPECT_NE(r.reason.find("bad parameters"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find(c.mentions), std::string::npos) << r.reason;
  }
}

TEST(BenchChecks, GoodParametersAreAccepted) {
  // Parameters are read before the GPU is asked for, so on this machine a good set gets as far
  // as the CUDA probe: the reason is the runtime's, not "bad parameters".
  const CudaProbe probe = probe_cuda();
  if (probe.ok()) GTEST_SKIP() << "a GPU is visible: tests/gpu runs the checks";
  const CheckResult r = run_check("gemm", {{"sizes", {4096, 8192}},
                                           {"precisions", {"bf16", "fp8_e4m3", "int8"}},
                                           {"verify_samples", 64},
                                           {"target_cv", 0.01},
                                           {"seed", 7}});
  EXPECT_EQ(r.reason, probe.reason);
  // The parameter names the shipped suite YAMLs use.
  EXPECT_EQ(
      run_check("hbm", {{"kernels", {"copy", "scale", "add", "triad", "read", "write"}}, {"array_mib", 1024}})
          .reason,
      probe.reason);
  EXPECT_EQ(run_check("pcie", {{"size_mib", 1024},
                               {"directions", {"h2d", "d2h", "bidir"}},
                               {"all_gpus_at_once", true},
                               {"numa_placement", false}})
                .reason,
            probe.reason);
  EXPECT_EQ(run_check("p2p", {{"size_mib", 512}, {"bidirectional", false}}).reason, probe.reason);
}

TEST(BenchGpus, SelectionAndRollUp) {
  std::vector<int> invisible;
  EXPECT_EQ(select_gpus({}, 3, &invisible), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(select_gpus({2, 5, 0}, 3, &invisible), (std::vector<int>{2, 0}));
  EXPECT_EQ(invisible, std::vector<int>{5});

  CheckResult r;
  std::vector<GpuOutcome> outs(3);
  outs[0].add(Status::pass, "");
  outs[0].metrics.push_back(Metric{});
  outs[1].add(Status::warn, "bf16: noisy");
  outs[1].metrics.push_back(Metric{});
  outs[2].metrics.push_back(Metric{});
  const std::vector<std::string> errors{"", "", "CUDA error 700"};
  merge_outcomes(r, {0, 1, 2}, outs, errors);
  ASSERT_EQ(r.per_gpu.size(), 3u);
  EXPECT_EQ(r.per_gpu[0].status, Status::pass);
  EXPECT_EQ(r.per_gpu[1].status, Status::warn);
  EXPECT_EQ(r.per_gpu[2].status, Status::error);
  EXPECT_EQ(r.metrics.size(), 3u);  // what GPU 2 measured before it failed is kept
  EXPECT_EQ(r.status, Status::error);
  EXPECT_NE(r.reason.find("gpu 1: bf16: noisy"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("gpu 2: CUDA error 700"), std::string::npos) << r.reason;
}

TEST(BenchGpus, AGpuThatReportedNothingIsNotMeasuredNotPass) {
  // A GPU outcome starts "not measured": passing needs a metric, never the default status.
  CheckResult r;
  std::vector<GpuOutcome> outs(2);
  outs[0].metrics.push_back(Metric{});
  const std::vector<std::string> errors{"", ""};
  merge_outcomes(r, {0, 1}, outs, errors);
  ASSERT_EQ(r.per_gpu.size(), 2u);
  EXPECT_EQ(r.per_gpu[0].status, Status::pass);
  EXPECT_EQ(r.per_gpu[1].status, Status::error);
  EXPECT_NE(r.per_gpu[1].reason.find("not measured"), std::string::npos) << r.per_gpu[1].reason;
  EXPECT_EQ(r.status, Status::error);
}

TEST(BenchGpus, EachGpuThreadRunsAndErrorsStayWithTheirGpu) {
  const CudaProbe probe = probe_cuda();
  if (probe.ok()) GTEST_SKIP() << "a GPU is visible; this test needs cudaSetDevice to fail";
  // Without a driver cudaSetDevice fails in every thread: each slot reports the CUDA error.
  const auto errors = run_on_each_gpu({0, 1}, [](std::size_t, int) {});
  ASSERT_EQ(errors.size(), 2u);
  for (const auto& e : errors) EXPECT_NE(e.find("cudaSetDevice"), std::string::npos) << e;
}

}  // namespace
}  // namespace gpuqual
