// On a GPU node: the real inventory (CUDA + NVML), an NVML health snapshot with samples, the
// `health` check with PCIe traffic, the Xid monitor and the `compat` preflight. Without a usable
// GPU every test skips with the CUDA runtime's (or NVML's) reason.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "core/rules/health_snapshot_json.hpp"
#include "device/monitor/xid_monitor.hpp"
#include "device/node/inventory.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/nvml/nvml_snapshot.hpp"
#include "gpu_test_support.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

using namespace gpuqual;

namespace {

#define GPUQUAL_REQUIRE_NVML(session)                                    \
  do {                                                                   \
    if (!(session).ok()) GTEST_SKIP() << "NVML: " << (session).reason(); \
  } while (0)

CheckResult run_check(const std::string& name, nlohmann::json params, const Inventory& inv) {
  const CheckInfo* info = CheckRegistry::instance().find(name);
  EXPECT_NE(info, nullptr) << name;
  CheckContext ctx;
  ctx.params = std::move(params);
  ctx.node = inv.node;
  ctx.node_gpus = inv.gpus;
  for (const auto& g : inv.gpus) ctx.gpus.push_back(g.index);
  ctx.budget_s = 10;
  return info->make()->run(ctx);
}

void print_findings(const CheckResult& r) {
  std::printf("%s: %s: %s\n", r.name.c_str(), std::string(to_string(r.status)).c_str(), r.reason.c_str());
  for (const auto& f : r.findings) {
    std::printf("  %s [%s] gpu=%d %s\n", f.code.c_str(), std::string(to_string(f.severity)).c_str(),
                f.gpu.value_or(-1), f.detail.c_str());
  }
  for (const auto& [k, v] : r.attributes) std::printf("  %s = %s\n", k.c_str(), v.c_str());
}

}  // namespace

TEST(GpuInventory, ListsEveryCudaGpuWithNvmlFacts) {
  GPUQUAL_REQUIRE_GPU();
  Inventory inv = collect_inventory({});
  ASSERT_FALSE(inv.gpus.empty()) << inv.gpu_unavailable_reason;
  EXPECT_EQ(inv.gpu_unavailable_reason, "");
  EXPECT_FALSE(inv.node.cuda_driver_version.empty());
  for (const auto& g : inv.gpus) {
    EXPECT_FALSE(g.name.empty());
    EXPECT_TRUE(g.uuid.starts_with("GPU-")) << g.uuid;
    EXPECT_FALSE(g.pci_bus_id.empty());
    EXPECT_GT(g.sm_count, 0);
    EXPECT_GT(g.memory_bytes, 1ull << 30);
    std::printf(
        "GPU %d: %s %s %s cc %s, %d SMs, %.1f GiB, ECC %s, PCIe max Gen%d x%d, %.0f W, VBIOS %s, NVLink %d\n",
        g.index, g.name.c_str(), g.uuid.c_str(), g.pci_bus_id.c_str(), g.compute_capability.c_str(),
        g.sm_count, g.memory_bytes / double(1u << 30), g.ecc_enabled ? (*g.ecc_enabled ? "on" : "off") : "?",
        g.pcie_max_gen.value_or(0), g.pcie_max_width.value_or(0), g.power_limit_w.value_or(0),
        g.vbios.c_str(), g.nvlink_count.value_or(-1));
  }
  NvmlSession nvml = NvmlSession::open();
  if (nvml.ok()) {
    EXPECT_FALSE(inv.node.driver_version.empty());
    // NVML facts were matched to the CUDA GPUs (by UUID). The maximum PCIe link, which a virtual
    // machine's NVML may not give, is GpuNvml.ReadsTheMaximumPcieLink's.
    EXPECT_TRUE(inv.gpus.front().ecc_enabled.has_value());
    EXPECT_FALSE(inv.gpus.front().vbios.empty());
  }
  std::printf("driver %s, CUDA driver %s, runtime %s, cuBLAS %s, NCCL %s, class %s x%d\n",
              inv.node.driver_version.c_str(), inv.node.cuda_driver_version.c_str(),
              inv.node.cuda_runtime_version.c_str(), inv.node.cublas_version.c_str(),
              inv.node.nccl_version.c_str(), inv.hardware_class.slug.c_str(), inv.hardware_class.gpu_count);
}

TEST(GpuNvml, SnapshotReadsCountersAndSamples) {
  GPUQUAL_REQUIRE_GPU();
  NvmlSession nvml = NvmlSession::open();
  GPUQUAL_REQUIRE_NVML(nvml);
  Inventory inv = collect_inventory({});
  NvmlHealthReader reader(nvml, inv.gpus);
  HealthSnapshot s = reader.read();
  ASSERT_TRUE(s.nvml_available) << s.nvml_reason;
  EXPECT_EQ(s.gpus.size(), inv.gpus.size());
  for (int i = 0; i < 5; ++i) reader.sample(s);
  for (const auto& g : s.gpus) {
    EXPECT_EQ(g.throttle_samples, 5) << "GPU " << g.index;
    ASSERT_TRUE(g.temperature_c.has_value());
    EXPECT_GT(*g.temperature_c, 0);
    EXPECT_LT(*g.temperature_c, 120);
    if (g.ecc_enabled.value_or(false)) {
      EXPECT_TRUE(g.ecc_volatile_uncorrected.has_value());
    }
  }
  // The snapshot as a fixture for the CPU tests (tests/data/health/), when someone wants one.
  std::printf("%s\n", to_json(s).dump().c_str());
}

// Why NVML did not give `what` (the snapshot's `unread` entry), or "".
static std::string unread_reason(const GpuHealthReading& g, const std::string& what) {
  for (const auto& u : g.unread) {
    if (u.starts_with(what + ": ")) return u.substr(what.size() + 2);
  }
  return "";
}

// The maximum PCIe link (generation, width) of every GPU, in the snapshot and the inventory. A
// virtual machine's NVML may answer NOT_SUPPORTED for it (the GPU passed through, its link the
// hypervisor's): there the test skips with NVML's answer (tests/expected-skips.txt, condition
// gpu-vm). Anywhere else, or with any other answer, a link not read fails.
TEST(GpuNvml, ReadsTheMaximumPcieLink) {
  GPUQUAL_REQUIRE_GPU();
  NvmlSession nvml = NvmlSession::open();
  GPUQUAL_REQUIRE_NVML(nvml);
  Inventory inv = collect_inventory({});
  NvmlHealthReader reader(nvml, inv.gpus);
  const HealthSnapshot s = reader.read();
  ASSERT_TRUE(s.nvml_available) << s.nvml_reason;
  const bool vm = machine_is_vm();
  std::string unsupported;
  for (const auto& g : s.gpus) {
    for (const auto& [what, read] : {std::pair<std::string, bool>{"pcie_max_gen", g.pcie_max_gen.has_value()},
                                     {"pcie_max_width", g.pcie_max_width.has_value()}}) {
      if (read) continue;
      const std::string why = unread_reason(g, what);
      if (vm && why.find("NOT_SUPPORTED") != std::string::npos) {
        unsupported += "; GPU " + std::to_string(g.index) + " " + what + ": " + why;
        continue;
      }
      ADD_FAILURE() << "GPU " << g.index << ": " << what << " not read: " << (why.empty() ? "no reason" : why)
                    << (vm ? "" : " (not a virtual machine)");
    }
  }
  for (const auto& info : inv.gpus) {
    for (const auto& g : s.gpus) {
      if (g.index == info.index && g.pcie_max_width) {
        EXPECT_TRUE(info.pcie_max_width.has_value()) << info.index;
      }
    }
  }
  if (!unsupported.empty()) {
    GTEST_SKIP() << "virtual machine: NVML does not give the maximum PCIe link" << unsupported;
  }
}

TEST(GpuHealthCheck, RunsWithPcieTrafficAndJudges) {
  GPUQUAL_REQUIRE_GPU();
  NvmlSession nvml = NvmlSession::open();
  GPUQUAL_REQUIRE_NVML(nvml);
  Inventory inv = collect_inventory({});
  CheckResult r =
      run_check("health", {{"sample_s", 1.0}, {"expect_gpus", static_cast<int>(inv.gpus.size())}}, inv);
  print_findings(r);
  // Healthy or not is the node's fact; what the test demands is that it was judged.
  EXPECT_TRUE(r.status == Status::pass || r.status == Status::warn || r.status == Status::fail) << r.reason;
  EXPECT_EQ(r.attributes.at("pcie_load"), "on");
  EXPECT_EQ(r.per_gpu.size(), inv.gpus.size());
  for (const auto& f : r.findings) EXPECT_NE(f.code, "gpu.count_mismatch") << f.detail;
}

TEST(GpuXidMonitor, StartsAndStopsPromptly) {
  GPUQUAL_REQUIRE_GPU();
  NvmlSession nvml = NvmlSession::open();
  GPUQUAL_REQUIRE_NVML(nvml);
  Inventory inv = collect_inventory({});
  XidMonitor m(inv.gpus);
  if (!m.start()) {
    // VMs and sandboxed runtimes answer NOT_SUPPORTED, or refuse the registration outright: a fact
    // of the environment, which tests/expected-skips.txt allows there (condition gpu-vm), not a
    // fault of the monitor. On bare metal a refusal fails.
    if (m.events_unsupported()) GTEST_SKIP() << "NVML does not support Xid events here: " << m.reason();
    if (machine_is_vm())
      GTEST_SKIP() << "virtual machine: NVML refused Xid event registration: " << m.reason();
    FAIL() << m.reason();
  }
  EXPECT_EQ(m.watched_gpus().size(), inv.gpus.size());
  const auto t0 = std::chrono::steady_clock::now();
  auto events = m.stop();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
  for (const auto& e : events)
    std::printf("Xid %d on GPU %d at %s\n", e.code, e.gpu.value_or(-1), e.time.c_str());
}

TEST(GpuCompat, DriverRunsGpuqualsRuntime) {
  GPUQUAL_REQUIRE_GPU();
  Inventory inv = collect_inventory({});
  CheckResult r = run_check("compat", nlohmann::json::object(), inv);
  print_findings(r);
  // CUDA works in this process, so the driver runs gpuqual's runtime by some rule.
  EXPECT_TRUE(r.status == Status::pass || r.status == Status::warn) << r.reason;
  EXPECT_FALSE(r.attributes.at("runtime_rule").empty());
}
