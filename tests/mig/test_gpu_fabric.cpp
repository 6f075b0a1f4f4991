// NVLink fabric state through the real NVML reader (device/nvml/nvml_fabric.hpp) over the fake
// NVML (tests/data/mig/h200-fabric.json): a GPU not registered with the fabric fails, a link down
// or of an older generation fails against the class (baselines/nvlink-expected.yaml), an older
// driver that lacks the fabric call is info, and the driver's recovery action reaches the findings.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/record/hardware_class.hpp"
#include "core/rules/gpu_fabric.hpp"
#include "core/rules/health_rules.hpp"
#include "core/verdict/verdict_action.hpp"
#include "device/nvml/nvml_snapshot.hpp"
#include "mig_fixtures.hpp"

namespace gpuqual {
namespace {

using mig_test::gpus_from_fake_nvml;
using mig_test::topology;

const std::string kBaselines = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";

const SeverityTable& shipped() {
  static const SeverityTable t = load_severity_tables(kBaselines, health_finding_codes());
  return t;
}

// The fabric topology with `edit` applied to its GPUs, written next to the other temp files.
std::string edited(const std::string& name, const std::function<void(nlohmann::json&)>& edit) {
  std::ifstream in(topology("h200-fabric.json"));
  nlohmann::json top = nlohmann::json::parse(in);
  edit(top["gpus"]);
  const auto path = std::filesystem::temp_directory_path() / ("gpuqual-fabric-" + name + ".json");
  std::ofstream(path) << top.dump();
  return path.string();
}

struct Judged {
  HealthSnapshot snapshot;
  HealthEvaluation ev;
};

// Read as the health check reads, with the class expectations the check derives.
Judged judge(const std::string& topology_path) {
  const std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology_path);
  HealthPolicy policy;
  policy.expect_gpus = static_cast<int>(gpus.size());
  const NvLinkClassTable classes = load_nvlink_expectations(kBaselines + "/" + kNvLinkExpectedFile);
  for (const auto& g : gpus) {
    auto it = classes.find(hardware_class_slug(g.name, g.memory_bytes >> 20));
    if (it != classes.end()) policy.nvlink_by_gpu[g.index] = it->second;
  }
  NvmlSession nvml = NvmlSession::open(GPUQUAL_FAKE_NVML);
  NvmlHealthReader reader(nvml, gpus);
  Judged j{reader.read(), {}};
  reader.sample(j.snapshot);
  j.ev = evaluate_health(j.snapshot, nullptr, policy, shipped());
  return j;
}

std::vector<std::string> fabric_codes(const HealthEvaluation& ev, int gpu) {
  std::vector<std::string> out;
  for (const auto& f : ev.findings) {
    const bool ours = f.code.starts_with("fabric.") || f.code.starts_with("nvlink.") ||
                      f.code.starts_with("gpu.recovery") || f.code.starts_with("xid.");
    if (ours && f.gpu == gpu) out.push_back(f.code + ":" + std::string(to_string(f.severity)));
  }
  return out;
}

TEST(MigGpuFabric, NotRegisteredGpuFailsTheRegisteredOnePasses) {
  const Judged j = judge(topology("h200-fabric.json"));
  ASSERT_EQ(j.snapshot.gpus.size(), 2u);
  const GpuHealthReading& g0 = j.snapshot.gpus[0];
  ASSERT_TRUE(g0.fabric.has_value()) << g0.fabric_unread;
  EXPECT_EQ(g0.fabric->state, 3);
  EXPECT_EQ(g0.fabric->clique_id, 1u);
  EXPECT_EQ(g0.fabric->cluster_uuid, "00112233-4455-6677-8899-aabbccddeeff");
  ASSERT_EQ(g0.nvlinks.size(), 18u);
  EXPECT_EQ(g0.nvlinks[0].version, 6);
  EXPECT_EQ(g0.nvlinks[0].speed_mbps, 26562u);
  EXPECT_TRUE(fabric_codes(j.ev, 0).empty());
  EXPECT_EQ(fabric_codes(j.ev, 1), std::vector<std::string>{"fabric.not_registered:fail"});
  EXPECT_EQ(j.ev.status, Status::fail) << j.ev.reason;
}

TEST(MigGpuFabric, OlderDriverWithoutTheFabricCallIsInfoAndTheCheckPasses) {
  const Judged j = judge(edited("old-driver", [](nlohmann::json& gpus) {
    for (auto& g : gpus) g["fabric"] = "FUNCTION_NOT_FOUND";
  }));
  for (int gpu : {0, 1}) {
    EXPECT_EQ(fabric_codes(j.ev, gpu), std::vector<std::string>{"fabric.info_unavailable:info"});
  }
  EXPECT_EQ(j.ev.status, Status::pass) << j.ev.reason;
}

TEST(MigGpuFabric, UnhealthyMaskALinkDownAndAnOlderLinkFail) {
  const Judged j = judge(edited("unhealthy", [](nlohmann::json& gpus) {
    gpus[1]["fabric"] = gpus[0]["fabric"];
    gpus[0]["fabric"]["health_mask"] = 0x1a9;  // degraded bandwidth TRUE, the rest healthy
    gpus[1]["nvlinks"]["down"] = {5};
    gpus[1]["nvlinks"]["slow"] = {7};
  }));
  EXPECT_EQ(fabric_codes(j.ev, 0), std::vector<std::string>{"fabric.bandwidth_degraded:fail"});
  EXPECT_EQ(fabric_codes(j.ev, 1),
            (std::vector<std::string>{"nvlink.link_inactive:fail", "nvlink.below_class:fail",
                                      "nvlink.slower_than_class:fail"}));
}

TEST(MigGpuFabric, RecoveryActionFromNvmlIsAFinding) {
  const Judged j = judge(edited("recovery", [](nlohmann::json& gpus) {
    gpus[1]["fabric"] = gpus[0]["fabric"];
    gpus[1]["recovery_action"] = 4;  // NVML_GPU_RECOVERY_ACTION_DRAIN_AND_RESET
  }));
  ASSERT_EQ(j.snapshot.gpus[1].recovery_action, 4);
  EXPECT_EQ(fabric_codes(j.ev, 1), std::vector<std::string>{"gpu.recovery_action:fail"});
  EXPECT_EQ(j.snapshot.gpus[0].recovery_action, std::nullopt);  // NOT_SUPPORTED: not read, no finding
  EXPECT_TRUE(fabric_codes(j.ev, 0).empty());

  // The verdict over these findings needs what the driver asked for: drain and reset is a reset.
  Verdict v;
  for (const auto& f : j.ev.findings) {
    if (f.severity == Severity::info) continue;
    FindingRow row;
    row.check = "health";
    row.finding = f;
    row.status = f.severity == Severity::fail ? Status::fail : Status::warn;
    v.findings.push_back(row);
  }
  assign_actions(v, shipped());
  EXPECT_EQ(v.action, NodeAction::reset_gpu);
}

}  // namespace
}  // namespace gpuqual
