// vGPU guests (docs/mig.md, "What does not apply"): what NVML does not give a vGPU guest (it
// answers NOT_SUPPORTED) is not applicable to the health check, never an error and never a pass:
// the check skips with vgpu_guest unless something it did read fails. Read through the real
// NVML reader (device/nvml/nvml_snapshot.hpp) over the fake NVML (tests/data/mig/h100-vgpu-guest.json).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/rules/health_rules.hpp"
#include "core/verdict/skip_acceptance.hpp"
#include "device/nvml/nvml_snapshot.hpp"
#include "mig_fixtures.hpp"
#include "tests/support/shipped_severity.hpp"

namespace gpuqual {
namespace {

using mig_test::gpus_from_fake_nvml;
using mig_test::topology;

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

// The guest's topology with each GPU's virtualization mode and unsupported readings replaced.
std::string guest_topology(const std::string& mode, const nlohmann::json& not_supported) {
  std::ifstream in(topology("h100-vgpu-guest.json"));
  nlohmann::json top = nlohmann::json::parse(in);
  for (auto& g : top["gpus"]) {
    g["virtualization_mode"] = mode;
    g["not_supported"] = not_supported;
  }
  const auto path = std::filesystem::temp_directory_path() /
                    ("gpuqual-vgpu-" + mode + "-" + std::to_string(not_supported.size()) + ".json");
  std::ofstream(path) << top.dump();
  return path.string();
}

// The snapshot the health check takes: NVML's static readings and one sample.
HealthSnapshot snapshot_of(const std::string& topology_path) {
  const std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology_path);
  NvmlSession nvml = NvmlSession::open(GPUQUAL_FAKE_NVML);
  NvmlHealthReader reader(nvml, gpus);
  HealthSnapshot s = reader.read();
  reader.sample(s);
  return s;
}

HealthEvaluation judge(const HealthSnapshot& s, HealthPolicy policy = {}) {
  policy.expect_gpus = 2;
  return evaluate_health(s, nullptr, policy, shipped());
}

const nlohmann::json kGuestGaps = {"ecc_mode", "ecc_counters", "remapped_rows", "pcie_link"};

TEST(MigVgpuHealth, WhatAGuestIsNotGivenSkipsAsVgpuGuestNeverPasses) {
  const HealthSnapshot s = snapshot_of(topology("h100-vgpu-guest.json"));
  ASSERT_EQ(s.gpus.size(), 2u);
  EXPECT_EQ(s.gpus[0].virtualization_mode, "vgpu");
  const HealthEvaluation ev = judge(s);
  EXPECT_EQ(ev.status, Status::skip) << ev.reason;
  EXPECT_EQ(ev.reason_code, "vgpu_guest");
  for (const char* field : {"ecc_mode", "ecc_volatile_uncorrected", "remapped_rows", "pcie_link"}) {
    EXPECT_NE(ev.reason.find(field), std::string::npos) << field << " not named in: " << ev.reason;
  }
  // NVML's own answer is kept for each field, among the check's not-applicable readings.
  ASSERT_FALSE(ev.not_applicable.empty());
  EXPECT_NE(ev.not_applicable[0].find("not provided to a vGPU guest (NVML_ERROR_NOT_SUPPORTED"),
            std::string::npos)
      << ev.not_applicable[0];
  ASSERT_EQ(ev.per_gpu.size(), 2u);
  for (const auto& g : ev.per_gpu) EXPECT_EQ(g.status, Status::skip) << g.reason;
}

TEST(MigVgpuHealth, TheSameAnswersOnBareMetalAreNotRead) {
  const HealthEvaluation ev = judge(snapshot_of(guest_topology("none", kGuestGaps)));
  EXPECT_EQ(ev.status, Status::error) << ev.reason;
  EXPECT_TRUE(ev.reason_code.empty());
  EXPECT_NE(ev.reason.find("not read"), std::string::npos) << ev.reason;
}

TEST(MigVgpuHealth, AGuestGivenEveryReadingIsJudgedLikeAnyGpu) {
  const HealthEvaluation ev = judge(snapshot_of(guest_topology("vgpu", nlohmann::json::array())));
  EXPECT_EQ(ev.status, Status::pass) << ev.reason;
  EXPECT_TRUE(ev.reason_code.empty());
}

TEST(MigVgpuHealth, AFaultItDidReadStillFails) {
  HealthSnapshot s = snapshot_of(topology("h100-vgpu-guest.json"));
  s.xids.push_back(XidEvent{79, 1, s.gpus[1].uuid, "2026-12-05T03:00:00Z", ""});
  const HealthEvaluation ev = judge(s);
  EXPECT_EQ(ev.status, Status::fail) << ev.reason;
  EXPECT_TRUE(ev.reason_code.empty());
  EXPECT_EQ(ev.per_gpu[1].status, Status::fail);
}

TEST(MigVgpuHealth, AnXidWatchAGuestIsNotGivenIsNotApplicableOnlyThere) {
  HealthPolicy off;
  off.xid_watch_off = "nvmlDeviceRegisterEvents: NVML_ERROR_NOT_SUPPORTED: Not Supported";
  const HealthEvaluation guest = judge(snapshot_of(guest_topology("vgpu", nlohmann::json::array())), off);
  EXPECT_EQ(guest.status, Status::skip) << guest.reason;
  EXPECT_EQ(guest.reason_code, "vgpu_guest");
  EXPECT_NE(guest.reason.find("Xid events"), std::string::npos) << guest.reason;
  const HealthEvaluation bare = judge(snapshot_of(guest_topology("none", nlohmann::json::array())), off);
  EXPECT_EQ(bare.status, Status::error) << bare.reason;
}

TEST(MigVgpuHealth, TheSkipCountsOnlyWhereTheRecordShowsVgpus) {
  RunRecord rec;
  rec.gpus = gpus_from_fake_nvml(topology("h100-vgpu-guest.json"));
  CheckResult health;
  health.name = "health";
  health.status = Status::skip;
  health.reason_code = "vgpu_guest";
  EXPECT_FALSE(not_applicable_refusal(rec, health, "vgpu_guest", std::nullopt));
  for (GpuInfo& g : rec.gpus) g.virtualization_mode = "passthrough";
  EXPECT_TRUE(not_applicable_refusal(rec, health, "vgpu_guest", std::nullopt));
  CheckResult gemm = health;
  gemm.name = "gemm";
  rec.gpus = gpus_from_fake_nvml(topology("h100-vgpu-guest.json"));
  EXPECT_TRUE(not_applicable_refusal(rec, gemm, "vgpu_guest", std::nullopt));
}

}  // namespace
}  // namespace gpuqual
