// The `health` check, the Xid monitor and the PCIe traffic generator on this machine (no
// driver: NVML cannot load, CUDA cannot run) and, where a GPU is present, on the real device.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include <cuda_runtime_api.h>

#include <chrono>
#include <thread>

#include "core/base/input_error.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "device/monitor/run_monitor.hpp"
#include "device/monitor/xid_monitor.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/pcie/pcie_traffic.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

using namespace gpuqual;

namespace {
bool nvml_present() { return NvmlSession::open().ok(); }

CheckResult run_health(nlohmann::json params, std::vector<int> gpus = {}) {
  const CheckInfo* info = CheckRegistry::instance().find("health");
  EXPECT_NE(info, nullptr);
  CheckContext ctx;
  ctx.params = std::move(params);
  ctx.gpus = std::move(gpus);
  ctx.budget_s = 5;
  return info->make()->run(ctx);
}
}  // namespace

TEST(HealthCheck, IsRegistered) {
  const CheckInfo* info = CheckRegistry::instance().find("health");
  ASSERT_NE(info, nullptr);
  EXPECT_FALSE(info->test_only);
  EXPECT_NE(info->description.find("ECC"), std::string::npos);
}

TEST(HealthCheck, WithoutNvmlItSkipsWithTheLoaderMessage) {
  if (nvml_present()) GTEST_SKIP() << "NVML is present on this machine; covered by the GPU test";
  CheckResult r = run_health({{"sample_s", 0.1}});
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("NVML unavailable: libnvidia-ml.so.1 not loadable"), std::string::npos) << r.reason;
  EXPECT_TRUE(r.findings.empty());
  EXPECT_NE(r.attributes.at("severity_tables").find("xid-severity.yaml"), std::string::npos);
}

TEST(HealthCheck, BadParametersAreInputErrors) {
  EXPECT_THROW(run_health({{"sample_secs", 1}}), InputError);  // typo
  EXPECT_THROW(run_health({{"expect_gpus", -1}}), InputError);
  EXPECT_THROW(run_health({{"severity_overrides", "/nonexistent/overrides.yaml"}}), InputError);
}

TEST(XidMonitor, WithoutNvmlStartReportsWhy) {
  XidMonitor m({});
  if (nvml_present()) {
    EXPECT_TRUE(m.start()) << m.reason();
    (void)m.stop();  // events depend on the node; stop() must return promptly
    return;
  }
  EXPECT_FALSE(m.start());
  EXPECT_FALSE(m.available());
  EXPECT_NE(m.reason().find("NVML unavailable"), std::string::npos) << m.reason();
  EXPECT_TRUE(m.stop().empty());
}

TEST(XidMonitor, MissingLibraryPathIsAReason) {
  XidMonitor m({}, "libnvidia-ml-missing.so.1");
  EXPECT_FALSE(m.start());
  EXPECT_NE(m.reason().find("libnvidia-ml-missing.so.1"), std::string::npos) << m.reason();
}

TEST(PcieTraffic, ReportsTheCudaErrorWhenNoCopyRuns) {
  int n = 0;
  const bool have_gpu = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
  PcieTraffic t;
  t.start({0}, 1 << 20);
  std::this_thread::sleep_for(std::chrono::milliseconds(have_gpu ? 200 : 20));
  t.stop();
  if (have_gpu) {
    EXPECT_EQ(t.loaded(), std::vector<int>{0});
  } else {
    EXPECT_TRUE(t.loaded().empty());
    ASSERT_EQ(t.failures().count(0), 1u);
    EXPECT_NE(t.failures().at(0).find("cudaErrorInsufficientDriver"), std::string::npos)
        << t.failures().at(0);
  }
}

TEST(RunHealthMonitor, WithoutNvmlTheXidResultIsASkipWithTheReason) {
  RunHealthMonitor m({}, "libnvidia-ml-missing.so.1");
  const std::string dir = ::testing::TempDir();
  m.start(dir);
  m.set_running_check("gemm");
  SeverityTable table =
      load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", health_finding_codes());
  CheckResult r = m.stop(table);
  EXPECT_EQ(r.name, "xid");
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_NE(r.reason.find("libnvidia-ml-missing.so.1"), std::string::npos) << r.reason;
  EXPECT_FALSE(std::filesystem::exists(dir + "/nvml-before.json"));  // nothing measured, nothing written
  RunHealthMonitor never({});
  EXPECT_EQ(never.stop(table).status, Status::skip);
}
