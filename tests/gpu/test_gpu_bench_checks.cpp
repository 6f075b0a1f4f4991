// The gemm, hbm, pcie and p2p checks end to end as the runner calls them, on a real GPU, with
// small parameters: status, metric names, units, GPU indices and samples as the record needs.
#include "gpu_test_support.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

CheckResult run_check(const std::string& name, nlohmann::json params, std::vector<int> gpus = {0}) {
  CheckContext ctx;
  ctx.gpus = std::move(gpus);
  ctx.params = std::move(params);
  ctx.budget_s = 10;
  return CheckRegistry::instance().find(name)->make()->run(ctx);
}

const Metric* find_metric(const CheckResult& r, const std::string& name) {
  for (const auto& m : r.metrics)
    if (m.name == name) return &m;
  return nullptr;
}

void expect_measured(const CheckResult& r, const std::string& metric, const std::string& unit) {
  EXPECT_TRUE(r.status == Status::pass || r.status == Status::warn)
      << r.name << ": " << to_string(r.status) << ": " << r.reason;
  const Metric* m = find_metric(r, metric);
  ASSERT_NE(m, nullptr) << metric;
  EXPECT_EQ(m->unit, unit);
  EXPECT_EQ(m->gpu, 0);
  EXPECT_GE(m->n(), 1u);
  EXPECT_GT(m->median, 0.0);
  EXPECT_LE(m->min, m->median);
  EXPECT_LE(m->median, m->max);
  ASSERT_EQ(r.per_gpu.size(), 1u);
  EXPECT_EQ(r.per_gpu[0].gpu, 0);
  for (const auto& [k, v] : r.attributes) std::cout << "[ INFO ] " << k << " = " << v << "\n";
}

TEST(GpuChecks, Gemm) {
  GPUQUAL_REQUIRE_GPU();
  const auto r =
      run_check("gemm", {{"sizes", {2048}}, {"precisions", {"bf16", "fp8", "int8"}}, {"verify_samples", 64}});
  expect_measured(r, "gemm.bf16.n2048.tflops", "TFLOP/s");
  EXPECT_TRUE(r.findings.empty());
}

TEST(GpuChecks, Hbm) {
  GPUQUAL_REQUIRE_GPU();
  const auto r = run_check("hbm", {{"kernels", {"copy", "triad", "read"}}});
  expect_measured(r, "hbm.triad.gbps", "GB/s");
  EXPECT_NE(find_metric(r, "hbm.read.gbps"), nullptr);
  EXPECT_TRUE(r.findings.empty());
}

TEST(GpuChecks, Pcie) {
  GPUQUAL_REQUIRE_GPU();
  const auto r = run_check("pcie", nlohmann::json::object());
  expect_measured(r, "pcie.h2d.gbps", "GB/s");
  EXPECT_NE(find_metric(r, "pcie.d2h.gbps"), nullptr);
  EXPECT_NE(find_metric(r, "pcie.bidir.gbps"), nullptr);
}

TEST(GpuChecks, P2pWithOneGpuIsSkip) {
  GPUQUAL_REQUIRE_GPU();
  const auto r = run_check("p2p", nlohmann::json::object(), {0});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("at least 2 GPUs"), std::string::npos) << r.reason;
}

}  // namespace
}  // namespace gpuqual
