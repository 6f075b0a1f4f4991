// The `mig` layout rules and check (docs/mig.md, "The layout check") over the fake NVML's
// topologies, the MIG manager's ConfigMap (tests/data/mig/mig-parted-configmap.yaml), state labels
// and Node capacities.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/rules/mig_layout.hpp"
#include "core/verdict/gpu_partition_skips.hpp"
#include "mig_fixtures.hpp"
#include "suites/check.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {
namespace {

using mig_test::gpus_from_fake_nvml;
using mig_test::topology;

const std::string kConfigMap = topology("mig-parted-configmap.yaml");

MigLayoutInputs inputs(const std::string& topo, const std::string& config, const std::string& state) {
  MigLayoutInputs in;
  in.gpus = gpus_from_fake_nvml(topology(topo));
  in.config = parse_mig_manager_config(read_text_file(kConfigMap, 1 << 20), kConfigMap);
  in.config_origin = kConfigMap;
  if (!config.empty()) in.labels[kMigConfigLabel] = config;
  if (!state.empty()) in.labels[kMigConfigStateLabel] = state;
  return in;
}

std::vector<std::string> codes(const MigLayoutResult& r, Severity s = Severity::fail) {
  std::vector<std::string> out;
  for (const Finding& f : r.findings) {
    if (f.severity == s) out.push_back(f.code);
  }
  return out;
}

const Finding* find_code(const MigLayoutResult& r, const std::string& code) {
  auto it =
      std::find_if(r.findings.begin(), r.findings.end(), [&](const Finding& f) { return f.code == code; });
  return it == r.findings.end() ? nullptr : &*it;
}

TEST(MigLayout, ReadsTheMigManagerConfigMap) {
  MigManagerConfig c = parse_mig_manager_config(read_text_file(kConfigMap, 1 << 20), kConfigMap);
  ASSERT_EQ(c.configs.count("all-1g.10gb"), 1u);
  const MigConfigEntry& e = c.configs.at("all-1g.10gb").at(0);
  EXPECT_TRUE(e.all_devices);
  EXPECT_TRUE(e.mig_enabled);
  EXPECT_EQ(e.mig_devices.at("1g.10gb"), 7);
  EXPECT_EQ(c.configs.at("half-1g.10gb").at(0).devices, std::vector<int>{0});
  EXPECT_EQ(c.configs.at("all-balanced").at(0).device_filter.at(0), "0x233010de");
}

TEST(MigLayout, BadConfigNamesFileLineAndField) {
  const std::string bad = "version: v1\nmig-configs:\n  x:\n    - devices: all\n      mig-enabled: maybe\n";
  try {
    parse_mig_manager_config(bad, "cfg.yaml");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cfg.yaml"), std::string::npos) << what;
    EXPECT_NE(what.find("line 5"), std::string::npos) << what;
    EXPECT_NE(what.find("mig-enabled"), std::string::npos) << what;
  }
  EXPECT_THROW(parse_mig_manager_config("kind: ConfigMap\ndata: {a: 'b: 1'}\n", "cm.yaml"), InputError);
}

TEST(MigLayout, EveryGpuSplitAsConfiguredPasses) {
  MigLayoutInputs in = inputs("h100-all-1g.json", "all-1g.10gb", "success");
  in.labels[kMigStrategyLabel] = "mixed";
  in.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/mig-1g.10gb", 14}};
  MigLayoutResult r = judge_mig_layout(in);
  EXPECT_TRUE(codes(r).empty()) << r.findings.front().detail;
  EXPECT_EQ(r.compared, 3);
}

TEST(MigLayout, OneInstanceMissingFailsNamingGpuAndProfile) {
  MigLayoutResult r = judge_mig_layout(inputs("h100-one-missing.json", "all-1g.10gb", "pending"));
  const Finding* f = find_code(r, "mig.instance_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->gpu, 1);
  EXPECT_NE(f->detail.find("GPU 1 ("), std::string::npos) << f->detail;
  EXPECT_NE(f->detail.find("1g.10gb: 6 MIG devices, config all-1g.10gb asks for 7"), std::string::npos)
      << f->detail;
  EXPECT_EQ(codes(r), (std::vector<std::string>{"mig.instance_mismatch", "mig.config_in_progress"}));
}

TEST(MigLayout, SuccessOverAWrongLayoutFails) {
  MigLayoutResult r = judge_mig_layout(inputs("h100-mixed-profiles.json", "all-1g.10gb", "success"));
  const Finding* f = find_code(r, "mig.state_success_wrong_layout");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::fail);
  // Each profile of each GPU that differs is named: 1g.10gb (2 of 7), 2g.20gb, 3g.40gb, twice.
  const std::vector<std::string> failed = codes(r);
  EXPECT_EQ(std::count(failed.begin(), failed.end(), "mig.instance_mismatch"), 6);
  EXPECT_NE(f->detail.find("in 6 places"), std::string::npos) << f->detail;
}

TEST(MigLayout, MixedProfilesMatchTheirConfigByDeviceFilter) {
  MigLayoutInputs in = inputs("h100-mixed-profiles.json", "all-balanced", "success");
  EXPECT_EQ(codes(judge_mig_layout(in)),
            (std::vector<std::string>{"mig.config_no_entry", "mig.config_no_entry",
                                      "mig.state_success_wrong_layout"}))
      << "without the PCI device id the filtered entry selects no GPU";
  in.pci_gpus = {{"0000:19:00.0", "0x2330", "0x030200", "nvidia"},
                 {"0000:1a:00.0", "0x2330", "0x030200", "nvidia"}};
  EXPECT_TRUE(codes(judge_mig_layout(in)).empty());
}

TEST(MigLayout, MixedNodeQualifiesBothKinds) {
  MigLayoutInputs in = inputs("h100-mixed-node.json", "half-1g.10gb", "success");
  in.labels[kMigStrategyLabel] = "mixed";
  in.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/gpu", 1}};
  EXPECT_TRUE(codes(judge_mig_layout(in)).empty());
  // The whole GPU counted as seven slices (the device plugin's view before the change).
  in.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/mig-1g.10gb", 7}, {"nvidia.com/gpu", 2}};
  MigLayoutResult r = judge_mig_layout(in);
  ASSERT_EQ(codes(r), std::vector<std::string>{"mig.resources_mismatch"});
  EXPECT_NE(r.findings[0].detail.find("nvidia.com/gpu: the Node advertises 2, the GPUs give 1"),
            std::string::npos);
  // The same node against all-1g.10gb: GPU 1 is not in MIG mode.
  MigLayoutResult all = judge_mig_layout(inputs("h100-mixed-node.json", "all-1g.10gb", "success"));
  const Finding* f = find_code(all, "mig.mode_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("GPU 1 ("), std::string::npos);
  EXPECT_NE(f->detail.find("MIG disabled, config all-1g.10gb asks for enabled"), std::string::npos);
}

TEST(MigLayout, AdvertisedResourcesMissingAProfileFail) {
  MigLayoutInputs in = inputs("h100-mixed-profiles.json", "", "");
  in.labels[kMigStrategyLabel] = "mixed";
  in.capacity = std::map<std::string, std::int64_t>{
      {"nvidia.com/mig-1g.10gb", 4}, {"nvidia.com/mig-2g.20gb", 2}, {"nvidia.com/mig-3g.40gb", 1}};
  MigLayoutResult r = judge_mig_layout(in);
  ASSERT_EQ(codes(r), std::vector<std::string>{"mig.resources_mismatch"});
  EXPECT_NE(r.findings.back().detail.find("nvidia.com/mig-3g.40gb: the Node advertises 1, the GPUs give 2"),
            std::string::npos)
      << r.findings.back().detail;
  EXPECT_NE(r.findings.back().detail.find("GPU 0: 1, GPU 1: 1"), std::string::npos);
  EXPECT_EQ(codes(r, Severity::info), std::vector<std::string>{"mig.config_label_missing"});
}

TEST(MigLayout, SingleStrategyCountsMigDevicesAsGpus) {
  MigLayoutInputs in = inputs("h100-all-1g.json", "", "");
  in.labels[kMigStrategyLabel] = "single";
  in.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/gpu", 14}};
  EXPECT_TRUE(codes(judge_mig_layout(in)).empty());
  MigLayoutInputs mixed = inputs("h100-mixed-profiles.json", "", "");
  mixed.labels[kMigStrategyLabel] = "single";
  mixed.capacity = std::map<std::string, std::int64_t>{{"nvidia.com/gpu", 8}};
  EXPECT_EQ(codes(judge_mig_layout(mixed)), std::vector<std::string>{"mig.strategy_mismatch"});
}

TEST(MigLayout, StateFailedAndUnknownConfigFail) {
  EXPECT_EQ(codes(judge_mig_layout(inputs("h100-all-1g.json", "all-1g.10gb", "failed"))),
            std::vector<std::string>{"mig.config_failed"});
  EXPECT_EQ(codes(judge_mig_layout(inputs("h100-all-1g.json", "all-1g.20gb", "success"))),
            std::vector<std::string>{"mig.config_unknown"});
}

TEST(MigLayout, NodeCapacityReadsNvidiaResources) {
  nlohmann::json node = nlohmann::json::parse(
      R"({"kind": "Node", "status": {"capacity": {"cpu": "96", "nvidia.com/mig-1g.10gb": "14", "nvidia.com/gpu": "0"}}})");
  auto c = nvidia_capacity_from_node(node, "node.json");
  EXPECT_EQ(c, (std::map<std::string, std::int64_t>{{"nvidia.com/gpu", 0}, {"nvidia.com/mig-1g.10gb", 14}}));
  node["status"]["capacity"]["nvidia.com/gpu"] = "2k";
  EXPECT_THROW(nvidia_capacity_from_node(node, "node.json"), InputError);
}

// The check itself, found in the registry as the child finds it, on the fake NVML's inventory.
class MigCheckRun : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("gpuqual-mig-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CheckResult run(const std::string& topo, std::map<std::string, std::string> labels,
                  const std::string& capacity) {
    CheckContext ctx;
    ctx.node_gpus = gpus_from_fake_nvml(topology(topo));
    for (const GpuInfo& g : ctx.node_gpus) ctx.gpus.push_back(g.index);
    ctx.node.k8s_labels = std::move(labels);
    const std::string node_file = (dir_ / "node.json").string();
    std::ofstream(node_file) << R"({"kind": "Node", "status": {"capacity": )" << capacity << "}}";
    ctx.params = {{"config_file", kConfigMap}, {"node_file", node_file}};
    return CheckRegistry::instance().find("mig")->make()->run(ctx);
  }

  std::filesystem::path dir_;
};

TEST_F(MigCheckRun, PassesTheConfiguredLayout) {
  CheckResult r =
      run("h100-all-1g.json",
          {{kMigConfigLabel, "all-1g.10gb"}, {kMigConfigStateLabel, "success"}, {kMigStrategyLabel, "mixed"}},
          R"({"nvidia.com/mig-1g.10gb": "14"})");
  EXPECT_EQ(r.status, Status::pass) << r.reason;
  EXPECT_EQ(r.attributes.at(kMigConfigLabel), "all-1g.10gb");
}

TEST_F(MigCheckRun, FailsOneMissingInstanceUnderSuccess) {
  CheckResult r =
      run("h100-one-missing.json",
          {{kMigConfigLabel, "all-1g.10gb"}, {kMigConfigStateLabel, "success"}, {kMigStrategyLabel, "mixed"}},
          R"({"nvidia.com/mig-1g.10gb": "13"})");
  EXPECT_EQ(r.status, Status::fail);
  EXPECT_NE(r.reason.find("GPU 1 ("), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("1g.10gb"), std::string::npos) << r.reason;
  EXPECT_NE(r.reason.find("and 1 more"), std::string::npos) << r.reason;  // the success label over it
}

TEST_F(MigCheckRun, NotApplicableWithoutMigAndBorneOutByTheRecord) {
  CheckContext ctx;
  ctx.node_gpus = gpus_from_fake_nvml(topology("h100-mixed-node.json"));
  ctx.node_gpus.erase(ctx.node_gpus.begin());  // only the whole GPU
  CheckResult r = CheckRegistry::instance().find("mig")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "mig_disabled");
  RunRecord rec;
  rec.gpus = ctx.node_gpus;
  EXPECT_FALSE(gpu_partition_refusal(rec, "mig_disabled"));
  rec.gpus = gpus_from_fake_nvml(topology("h100-pending.json"));  // GPU 0 pending enable
  EXPECT_TRUE(gpu_partition_refusal(rec, "mig_disabled"));
}

TEST_F(MigCheckRun, NothingToCompareIsNotAPass) {
  CheckContext ctx;
  ctx.node_gpus = gpus_from_fake_nvml(topology("h100-all-1g.json"));
  ctx.params = {{"config_file", (dir_ / "absent.yaml").string()}};
  CheckResult named_but_absent = CheckRegistry::instance().find("mig")->make()->run(ctx);
  EXPECT_EQ(named_but_absent.status, Status::error) << named_but_absent.reason;
  ctx.params = nlohmann::json::object();
  ::unsetenv("GPUQUAL_NODE_FILE");
  CheckResult r = CheckRegistry::instance().find("mig")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::skip);
  EXPECT_EQ(r.reason_code, "");
  EXPECT_NE(r.reason.find("nothing to compare the MIG layout with"), std::string::npos) << r.reason;
}

TEST(MigSlices, PeerChecksSkipOnMigInstancesAsNotApplicable) {
  CheckContext ctx;
  ctx.node_gpus = gpus_from_fake_nvml(topology("h100-all-1g.json"));
  ctx.gpus = {0, 1};
  for (const char* check : {"p2p", "nccl_allreduce"}) {
    CheckResult r = CheckRegistry::instance().find(check)->make()->run(ctx);
    EXPECT_EQ(r.status, Status::skip) << check << ": " << r.reason;
    EXPECT_EQ(r.reason_code, "mig_instance") << check;
  }
  RunRecord rec;
  rec.gpus = ctx.node_gpus;
  EXPECT_FALSE(gpu_partition_refusal(rec, "mig_instance"));
  rec.gpus = gpus_from_fake_nvml(topology("h100-pending.json"));
  rec.gpus.pop_back();  // GPU 0 only: MIG not applied yet, so peers still apply
  EXPECT_TRUE(gpu_partition_refusal(rec, "mig_instance"));
}

TEST(MigSlices, VgpuGuestSkipsPeerCopies) {
  CheckContext ctx;
  ctx.node_gpus = gpus_from_fake_nvml(topology("h100-mixed-node.json"));
  for (GpuInfo& g : ctx.node_gpus) {
    g.mig.reset();
    g.virtualization_mode = "vgpu";
  }
  ctx.gpus = {0, 1};
  CheckResult r = CheckRegistry::instance().find("p2p")->make()->run(ctx);
  EXPECT_EQ(r.status, Status::skip) << r.reason;
  EXPECT_EQ(r.reason_code, "vgpu_guest");
  RunRecord rec;
  rec.gpus = ctx.node_gpus;
  EXPECT_FALSE(gpu_partition_refusal(rec, "vgpu_guest"));
  rec.gpus[0].virtualization_mode = rec.gpus[1].virtualization_mode = "none";
  EXPECT_TRUE(gpu_partition_refusal(rec, "vgpu_guest"));
}

}  // namespace
}  // namespace gpuqual
