// The NVLink fabric rules (core/rules/gpu_fabric.hpp): the health mask decoded field by field,
// registration, the class's NVLink count and generation (baselines/nvlink-expected.yaml), and
// the driver's recovery action, on the Xid 154 finding too. Built readings, shipped tables.
#include <gtest/gtest.h>

#include "core/base/input_error.hpp"
#include "core/rules/gpu_fabric.hpp"
#include "core/rules/health_rules.hpp"

using namespace gpuqual;

namespace {

const std::string kBaselines = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";

const SeverityTable& shipped() {
  static const SeverityTable t = load_severity_tables(kBaselines, health_finding_codes());
  return t;
}

// nvml.h: NVML_GPU_FABRIC_HEALTH_MASK_*_FALSE (2) in every yes/no field, configuration NONE (1).
constexpr std::uint32_t kHealthyMask = 2u | (2u << 2) | (2u << 4) | (2u << 6) | (1u << 8);

GpuHealthReading h200(int links = 18) {
  GpuHealthReading g;
  g.index = 0;
  g.name = "NVIDIA H200";
  for (int l = 0; l < links; ++l) g.nvlinks.push_back(NvLinkReading{.link = l, .active = true, .version = 6});
  g.fabric = GpuFabricReading{.state = 3,
                              .status = 0,
                              .status_text = "NVML_SUCCESS",
                              .clique_id = 7,
                              .cluster_uuid = "0123abcd-0000-0000-0000-000000000001",
                              .health_mask = kHealthyMask};
  return g;
}

FabricPolicy class_policy() {
  FabricPolicy p;
  p.nvlink_by_gpu[0] = load_nvlink_expectations(kBaselines + "/nvlink-expected.yaml").at("h200-sxm-141gb");
  return p;
}

std::vector<std::string> codes(const std::vector<Finding>& fs) {
  std::vector<std::string> out;
  for (const auto& f : fs) out.push_back(f.code + ":" + std::string(to_string(f.severity)));
  return out;
}

}  // namespace

TEST(GpuFabric, HealthMaskDecodesFieldByField) {
  const FabricHealthFields ok = decode_fabric_health_mask(kHealthyMask);
  EXPECT_EQ(ok.degraded_bw, 2u);
  EXPECT_EQ(ok.route_recovery, 2u);
  EXPECT_EQ(ok.route_unhealthy, 2u);
  EXPECT_EQ(ok.access_timeout_recovery, 2u);
  EXPECT_EQ(ok.incorrect_configuration, 1u);
  // Degraded bandwidth TRUE (bits 0-1), route unhealthy TRUE (bits 4-5), insufficient NVLinks (5 at bits
  // 8-11).
  const FabricHealthFields bad = decode_fabric_health_mask(1u | (2u << 2) | (1u << 4) | (5u << 8));
  EXPECT_EQ(bad.degraded_bw, 1u);
  EXPECT_EQ(bad.route_recovery, 2u);
  EXPECT_EQ(bad.route_unhealthy, 1u);
  EXPECT_EQ(bad.access_timeout_recovery, 0u);
  EXPECT_EQ(incorrect_configuration_name(bad.incorrect_configuration), "insufficient NVLinks");
}

TEST(GpuFabric, RegisteredHealthyClassGpuHasNoFinding) {
  EXPECT_TRUE(gpu_fabric_findings(h200(), class_policy(), shipped()).empty());
}

TEST(GpuFabric, NotRegisteredFailsAndNamesStateAndClique) {
  GpuHealthReading g = h200();
  g.fabric->state = 2;  // NVML_GPU_FABRIC_STATE_IN_PROGRESS
  const auto fs = gpu_fabric_findings(g, class_policy(), shipped());
  ASSERT_EQ(codes(fs), std::vector<std::string>{"fabric.not_registered:fail"});
  EXPECT_NE(fs[0].detail.find("registration in progress (clique 7, cluster 0123abcd-"), std::string::npos)
      << fs[0].detail;
  EXPECT_FALSE(fs[0].action.empty());
  g.fabric->state = 3;
  g.fabric->status = 999;
  g.fabric->status_text = "NVML_ERROR_UNKNOWN";
  EXPECT_EQ(codes(gpu_fabric_findings(g, class_policy(), shipped())),
            std::vector<std::string>{"fabric.not_registered:fail"});
}

TEST(GpuFabric, EachUnhealthyMaskFieldFailsOnItsOwn) {
  GpuHealthReading g = h200();
  g.fabric->health_mask = 1u | (1u << 2) | (1u << 4) | (1u << 6) | (2u << 8);
  EXPECT_EQ(codes(gpu_fabric_findings(g, class_policy(), shipped())),
            (std::vector<std::string>{"fabric.bandwidth_degraded:fail", "fabric.route_recovery:fail",
                                      "fabric.route_unhealthy:fail", "fabric.access_timeout_recovery:fail",
                                      "fabric.incorrect_configuration:fail"}));
}

TEST(GpuFabric, AMaskOfNotSupportedFieldsIsNoFinding) {
  GpuHealthReading g = h200();
  g.fabric->health_mask = 0;  // every field NOT_SUPPORTED (a driver that fills no field)
  EXPECT_TRUE(gpu_fabric_findings(g, class_policy(), shipped()).empty());
}

TEST(GpuFabric, OldDriverOrNoFabricIsInfoNeverAFailure) {
  GpuHealthReading g = h200();
  g.fabric.reset();
  g.fabric_unread =
      "nvmlDeviceGetGpuFabricInfoV missing from libnvidia-ml.so.1 (driver older than this NVML API)";
  auto fs = gpu_fabric_findings(g, class_policy(), shipped());
  ASSERT_EQ(codes(fs), std::vector<std::string>{"fabric.info_unavailable:info"});
  EXPECT_NE(fs[0].detail.find("driver older"), std::string::npos);
  g.fabric = GpuFabricReading{};  // state NVML_GPU_FABRIC_STATE_NOT_SUPPORTED
  EXPECT_EQ(codes(gpu_fabric_findings(g, class_policy(), shipped())),
            std::vector<std::string>{"fabric.info_unavailable:info"});
}

TEST(GpuFabric, FewerLinksThanTheClassFail) {
  GpuHealthReading g = h200(18);
  g.nvlinks[4].active = false;
  auto fs = gpu_fabric_findings(g, class_policy(), shipped());
  ASSERT_EQ(codes(fs), std::vector<std::string>{"nvlink.below_class:fail"});
  EXPECT_NE(fs[0].detail.find("17 of the class's 18 NVLink links active (18 listed by NVML; down: 4)"),
            std::string::npos)
      << fs[0].detail;
  // NVML listing 12 links, all up, on a class of 18 is 6 missing.
  fs = gpu_fabric_findings(h200(12), class_policy(), shipped());
  ASSERT_EQ(codes(fs), std::vector<std::string>{"nvlink.below_class:fail"});
  EXPECT_EQ(fs[0].value, 6.0);
}

TEST(GpuFabric, ALinkOfAnOlderGenerationFails) {
  GpuHealthReading g = h200();
  g.nvlinks[2].version = 5;  // NVML_NVLINK_VERSION_3_1: NVLink 3 on an NVLink 4 class
  auto fs = gpu_fabric_findings(g, class_policy(), shipped());
  ASSERT_EQ(codes(fs), std::vector<std::string>{"nvlink.slower_than_class:fail"});
  EXPECT_NE(fs[0].detail.find("link(s) 2 below NVLink 4"), std::string::npos) << fs[0].detail;
  // A version NVML does not give is not a slower link.
  g.nvlinks[2].version.reset();
  EXPECT_TRUE(gpu_fabric_findings(g, class_policy(), shipped()).empty());
}

TEST(GpuFabric, ClassRulesLeaveLinklessCasesToTheGenericRules) {
  FabricPolicy p = class_policy();
  GpuHealthReading g = h200();
  for (auto& l : g.nvlinks) l.active = false;
  p.single_gpu_partition = true;  // one GPU passed into a VM: every link down is no fabric
  EXPECT_TRUE(gpu_fabric_findings(g, p, shipped()).empty());
  p.single_gpu_partition = false;
  EXPECT_EQ(codes(gpu_fabric_findings(g, p, shipped())), std::vector<std::string>{"nvlink.below_class:fail"});
  // A class not in the table (no row for this GPU) is not judged by class.
  EXPECT_TRUE(gpu_fabric_findings(g, FabricPolicy{}, shipped()).empty());
}

TEST(GpuFabric, NvlinkGenerationsAndRecoveryActionNames) {
  EXPECT_EQ(nvlink_generation(6), 4);  // NVML_NVLINK_VERSION_4_0
  EXPECT_EQ(nvlink_generation(7), 5);  // NVML_NVLINK_VERSION_5_0
  EXPECT_EQ(nvlink_generation(0), 0);
  EXPECT_EQ(recovery_action_name(4), "drain and reset");
  EXPECT_EQ(recovery_action_name(7), "system reboot");
  EXPECT_EQ(recovery_action_name(42), "recovery action 42");
}

TEST(GpuFabric, ShippedClassTableHasTheHopperAndBlackwellRows) {
  const NvLinkClassTable t = load_nvlink_expectations(kBaselines + "/nvlink-expected.yaml");
  for (const char* slug : {"h100-sxm-80gb", "h200-sxm-141gb"}) {
    EXPECT_EQ(t.at(slug).links, 18) << slug;
    EXPECT_EQ(t.at(slug).nvlink_version, 4) << slug;
  }
  for (const char* slug : {"b200-sxm-180gb", "gb200-186gb"}) {
    EXPECT_EQ(t.at(slug).links, 18) << slug;
    EXPECT_EQ(t.at(slug).nvlink_version, 5) << slug;
  }
  for (const auto& [slug, row] : t) EXPECT_FALSE(row.source.empty()) << slug;
}

TEST(GpuFabric, MalformedClassTableIsAnInputErrorNamingTheField) {
  try {
    parse_nvlink_expectations(
        "schema: gpuqual.nvlink-expected/v1\nclasses:\n  x:\n    links: many\n"
        "    nvlink_version: 4\n    source: s\n",
        "t.yaml");
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.yaml");
    EXPECT_EQ(e.where(), "classes.x.links");
  }
  EXPECT_THROW(parse_nvlink_expectations("schema: other/v1\n", "t.yaml"), InputError);
}

TEST(GpuFabric, RecoveryActionFailsAndGivesXid154ItsAction) {
  HealthSnapshot s;
  s.nvml_available = true;
  GpuHealthReading g = h200();
  g.recovery_action = 1;  // NVML_GPU_RECOVERY_ACTION_GPU_RESET
  s.gpus.push_back(g);
  s.xids.push_back(XidEvent{.code = 154, .gpu = 0});
  std::vector<Finding> fs = xid_findings(s.xids, shipped());
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::warn);  // the table's rating without NVML's word
  apply_recovery_actions(fs, s, shipped());
  EXPECT_EQ(fs[0].severity, Severity::fail);
  EXPECT_EQ(fs[0].action, "GPU reset (NVML recovery action of GPU 0)");
  EXPECT_EQ(codes(gpu_fabric_findings(g, class_policy(), shipped())),
            std::vector<std::string>{"gpu.recovery_action:fail"});
  // NONE: the action is said, the severity stays the table's.
  s.gpus[0].recovery_action = 0;
  fs = xid_findings(s.xids, shipped());
  apply_recovery_actions(fs, s, shipped());
  EXPECT_EQ(fs[0].severity, Severity::warn);
  EXPECT_EQ(fs[0].action, "none (NVML recovery action of GPU 0)");
}
