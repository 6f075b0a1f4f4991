// Time-slicing and MPS (docs/mig.md, "Time-slicing and MPS"): the replicas labels, the device
// plugin's config (tests/data/mig/device-plugin-time-slicing.yaml) and the Node's capacity.
#include <gtest/gtest.h>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/rules/gpu_sharing.hpp"
#include "core/verdict/gpu_partition_skips.hpp"
#include "mig_fixtures.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

const std::string kPluginConfig = mig_test::topology("device-plugin-time-slicing.yaml");

SharingInputs sharing(std::int64_t capacity, const std::string& replicas_label) {
  SharingInputs in;
  in.physical_gpus = 2;
  in.config = parse_device_plugin_sharing(read_text_file(kPluginConfig, 1 << 20), kPluginConfig);
  in.labels = {{kReplicasLabel, replicas_label}, {kSharingStrategyLabel, "time-slicing"}};
  in.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/gpu", capacity}};
  return in;
}

TEST(MigSharing, ReadsTheDevicePluginSharingConfig) {
  SharingConfig c = parse_device_plugin_sharing(read_text_file(kPluginConfig, 1 << 20), kPluginConfig);
  EXPECT_EQ(c.strategy, "time-slicing");
  EXPECT_EQ(c.resource, "nvidia.com/gpu");
  EXPECT_EQ(c.replicas, 4);
  EXPECT_THROW(
      parse_device_plugin_sharing("version: v1\nsharing:\n  timeSlicing:\n    resources: 4\n", "x.yaml"),
      InputError);
}

TEST(MigSharing, ReplicasTimesGpusPasses) {
  SharingResult r = judge_gpu_sharing(sharing(8, "4"));
  EXPECT_TRUE(r.findings.empty()) << r.findings.front().detail;
  EXPECT_EQ(r.compared, 2);
}

TEST(MigSharing, ReplicasMismatchFails) {
  SharingResult capacity = judge_gpu_sharing(sharing(16, "4"));
  ASSERT_EQ(capacity.findings.size(), 1u);
  EXPECT_EQ(capacity.findings[0].code, "sharing.capacity_mismatch");
  EXPECT_NE(capacity.findings[0].detail.find("the Node advertises 16, 4 replicas x 2 GPUs = 8"),
            std::string::npos)
      << capacity.findings[0].detail;
  SharingResult label = judge_gpu_sharing(sharing(8, "8"));
  ASSERT_EQ(label.findings.size(), 1u);
  EXPECT_EQ(label.findings[0].code, "sharing.replicas_label_mismatch");
}

TEST(MigSharing, CheckSkipsAsNotApplicableWithoutSharing) {
  CheckContext ctx;
  ctx.node_gpus = mig_test::gpus_from_fake_nvml(mig_test::topology("h100-mixed-node.json"));
  ctx.params = {{"config_file", "/nonexistent/device-plugin.yaml"}};
  CheckResult bad = CheckRegistry::instance().find("gpu_sharing")->make()->run(ctx);
  EXPECT_EQ(bad.status, Status::error) << "a named config that is not there is an error";
  ctx.params = nlohmann::json::object();
  ::unsetenv("GPUQUAL_NODE_FILE");
  CheckResult r = CheckRegistry::instance().find("gpu_sharing")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "no_gpu_sharing");
  RunRecord rec;
  EXPECT_FALSE(gpu_partition_refusal(rec, "no_gpu_sharing"));
  rec.node.k8s_labels[kReplicasLabel] = "4";
  EXPECT_TRUE(gpu_partition_refusal(rec, "no_gpu_sharing"));
}

TEST(MigSharing, CheckFailsALyingReplicasLabel) {
  CheckContext ctx;
  ctx.node_gpus = mig_test::gpus_from_fake_nvml(mig_test::topology("h100-mixed-node.json"));
  ctx.node.k8s_labels = {{kReplicasLabel, "8"}, {kSharingStrategyLabel, "time-slicing"}};
  ctx.params = {{"config_file", kPluginConfig}};
  ::unsetenv("GPUQUAL_NODE_FILE");
  CheckResult r = CheckRegistry::instance().find("gpu_sharing")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_NE(r.reason.find("nvidia.com/gpu.replicas=8 but the device plugin's config gives 4"),
            std::string::npos)
      << r.reason;
}

}  // namespace
}  // namespace gpuqual
