// The `stack` rules of the NVLink fabric on Blackwell (core/rules/stack_fabric_rules.hpp) on host
// trees (tests/data/stack/README.md): NVLSM beside Fabric Manager on HGX B200/B300, the IMEX
// daemon's version against the driver, its channels, and a host IMEX daemon beside the DRA
// driver's ComputeDomains.
#include <gtest/gtest.h>

#include "core/rules/stack_fabric_rules.hpp"
#include "stack_trees.hpp"

using namespace gpuqual;
using gpuqual::testing::StackTree;

namespace {

class StackFabricRules : public StackTree {
 protected:
  void expect_coherent() {
    const StackJudgement j = judge();
    EXPECT_EQ(j.status, Status::pass) << codes(j);
    for (const auto& f : j.findings) EXPECT_EQ(f.severity, Severity::info) << codes(j);
  }
  Finding expect_broken(const std::string& code, Status status = Status::fail) {
    const StackJudgement j = judge();
    EXPECT_EQ(j.status, status) << codes(j);
    EXPECT_TRUE(has(j, code)) << codes(j);
    return has(j, code) ? finding(j, code) : Finding{};
  }
};

// --- NVLSM --------------------------------------------------------------------------------------

TEST_F(StackFabricRules, HgxB300WithFabricManagerAndNvlsmIsCoherent) {
  compose({"engines/containerd2", "overlays/hgx-b300", "overlays/nvlsm"});
  const HostStack h = read();
  EXPECT_EQ(h.pci_gpu_device_ids, (std::vector<unsigned>{0x3182, 0x3182}));
  EXPECT_TRUE(hgx_blackwell(h));
  ASSERT_EQ(h.nvlsm_packages.size(), 1u);
  EXPECT_EQ(h.nvlsm_packages[0].version, "2025.03.3-1");  // its own scheme, kept whole
  expect_coherent();
}

TEST_F(StackFabricRules, HgxB300WithoutNvlsmFails) {
  compose({"engines/containerd2", "overlays/hgx-b300"});
  const Finding f = expect_broken("stack.nvlsm_missing");
  EXPECT_NE(f.detail.find("2 HGX B200/B300 GPU(s)"), std::string::npos) << f.detail;
}

TEST_F(StackFabricRules, HopperNeedsNoNvlsm) {
  compose({"engines/containerd2"});  // the base's H100s (0x2330) and their NVSwitch
  EXPECT_FALSE(hgx_blackwell(read()));
  EXPECT_FALSE(has(judge(), "stack.nvlsm_missing"));
}

TEST_F(StackFabricRules, HgxB300IsAnNvswitchSystemEvenWithoutNvswitchesOnThePciBus) {
  compose({"engines/containerd2", "overlays/hgx-b300", "overlays/fm-missing"});
  std::filesystem::remove_all(root_ / "sys/bus/pci/devices/0000:05:00.0");
  const Finding f = expect_broken("stack.fabric_manager_missing");
  EXPECT_NE(f.detail.find("HGX B200/B300"), std::string::npos) << f.detail;
}

// --- IMEX ---------------------------------------------------------------------------------------

TEST_F(StackFabricRules, TheHostImexDaemonOfTheDriversVersionWithItsChannelIsCoherent) {
  compose({"engines/containerd2", "overlays/imex"});
  const HostStack h = read();
  EXPECT_TRUE(h.imex_unit);
  EXPECT_TRUE(h.imex_enabled);
  EXPECT_FALSE(h.imex_masked);
  EXPECT_EQ(h.imex_channels, std::optional<std::vector<std::string>>({"channel0"}));
  ASSERT_EQ(h.imex_packages.size(), 1u);
  EXPECT_EQ(h.imex_packages[0].version, "570.133.20");
  expect_coherent();
}

TEST_F(StackFabricRules, AnImexPackageOfAnotherVersionThanTheLoadedDriverFails) {
  compose({"engines/containerd2", "overlays/imex", "overlays/imex-mismatch"});
  const Finding f = expect_broken("stack.imex_version_mismatch");
  EXPECT_NE(f.detail.find("nvidia-imex-570 570.124.06 with driver 570.133.20"), std::string::npos)
      << f.detail;
}

TEST_F(StackFabricRules, AnEnabledImexDaemonWithoutChannelsWarns) {
  compose({"engines/containerd2", "overlays/imex"});
  std::filesystem::remove(root_ / "dev/nvidia-caps-imex-channels/channel0");
  Finding f = expect_broken("stack.imex_channels_missing", Status::warn);
  EXPECT_NE(f.detail.find("has no channel"), std::string::npos) << f.detail;
  std::filesystem::remove_all(root_ / "dev/nvidia-caps-imex-channels");
  f = expect_broken("stack.imex_channels_missing", Status::warn);
  EXPECT_NE(f.detail.find("does not exist"), std::string::npos) << f.detail;
}

TEST_F(StackFabricRules, ADisabledImexUnitNeedsNoChannel) {
  compose({"engines/containerd2", "overlays/imex"});
  std::filesystem::remove_all(root_ / "dev/nvidia-caps-imex-channels");
  std::filesystem::remove_all(root_ / "etc/systemd/system/multi-user.target.wants");
  expect_coherent();
}

TEST_F(StackFabricRules, AHostImexDaemonBesideTheDraDriversComputeDomainsIsNamed) {
  compose({"engines/containerd2", "overlays/imex", "overlays/dra-compute-domains"});
  const Finding f = expect_broken("stack.imex_dra_conflict");
  EXPECT_NE(f.detail.find("compute-domain.nvidia.com"), std::string::npos) << f.detail;
  EXPECT_NE(f.action.find("systemctl mask nvidia-imex.service"), std::string::npos) << f.action;
}

TEST_F(StackFabricRules, AMaskedHostImexDaemonLeavesImexToTheDraDriver) {
  // As NVIDIA's GPU Operator asks before ComputeDomains: disabled and masked.
  compose({"engines/containerd2", "overlays/imex", "overlays/dra-compute-domains"});
  std::filesystem::remove_all(root_ / "etc/systemd/system/multi-user.target.wants");
  std::filesystem::create_symlink("/dev/null", root_ / "etc/systemd/system/nvidia-imex.service");
  const HostStack h = read();
  EXPECT_TRUE(h.imex_masked);
  EXPECT_TRUE(h.dra_compute_domains);
  expect_coherent();
}

TEST_F(StackFabricRules, TheRulesJudgeValuesAsWellAsTrees) {
  HostStack h;
  h.pci_read = h.packages_read = true;
  h.loaded_driver = "580.95.05";
  h.pci_gpu_device_ids = {0x2901};  // HGX B200
  h.imex_packages = {{"nvidia-imex-580", "580.95.05"}};
  std::vector<std::string> found;
  nvlink_fabric_rules(h, [&](std::string_view code, std::string) { found.emplace_back(code); });
  EXPECT_EQ(found, (std::vector<std::string>{"stack.nvlsm_missing"}));
  h.nvlsm_packages = {{"nvlsm", "2025.06.1-1"}};
  h.pci_gpu_device_ids = {0x2941};  // GB200: no NVLSM on the compute tray
  h.imex_unit = h.imex_enabled = h.dra_compute_domains = true;
  h.imex_channels = std::vector<std::string>{"channel0"};
  found.clear();
  nvlink_fabric_rules(h, [&](std::string_view code, std::string) { found.emplace_back(code); });
  EXPECT_EQ(found, (std::vector<std::string>{"stack.imex_dra_conflict"}));
}

}  // namespace
