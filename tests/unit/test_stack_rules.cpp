// The `stack` rules on host trees in the files' real formats (tests/data/stack/README.md): each
// coherent tree passes with no warn or fail finding, and each broken tree fails (or warns) with
// its rule's code and a detail that names what is wrong.
#include <gtest/gtest.h>

#include "core/rules/health_severity.hpp"
#include "stack_trees.hpp"

using namespace gpuqual;
using gpuqual::testing::stack_data;
using gpuqual::testing::StackTree;

namespace {

class StackRules : public StackTree {
 protected:
  void expect_coherent() {
    const StackJudgement j = judge();
    EXPECT_EQ(j.status, Status::pass) << codes(j);
    for (const auto& f : j.findings) EXPECT_EQ(f.severity, Severity::info) << codes(j);
  }
  StackJudgement expect_broken(const std::string& code, Status status = Status::fail) {
    StackJudgement j = judge();
    EXPECT_EQ(j.status, status) << codes(j);
    EXPECT_TRUE(has(j, code)) << codes(j);
    return j;
  }
};

// --- coherent trees ----------------------------------------------------------------------------

TEST_F(StackRules, Containerd2WithTheToolkitsDropInAndCdiModeIsCoherent) {
  compose({"engines/containerd2"});
  const HostStack h = read();
  ASSERT_EQ(h.loaded_driver, "570.133.20");
  ASSERT_EQ(h.running_kernel, "6.8.0-49-generic");
  ASSERT_EQ(h.pci_gpus, 2);
  ASSERT_EQ(h.pci_nvswitches, 1);
  ASSERT_EQ(h.cdi_specs.size(), 1u);
  EXPECT_EQ(h.cdi_specs[0].kind, "nvidia.com/gpu");
  EXPECT_EQ(h.cdi_specs[0].devices.size(), 5u);
  ASSERT_EQ(h.engines.size(), 1u);
  EXPECT_EQ(h.engines[0].files.size(), 2u);  // config.toml and the imported conf.d/99-nvidia.toml
  EXPECT_EQ(h.engines[0].handler_binary, "/usr/bin/nvidia-container-runtime");
  EXPECT_EQ(h.engines[0].binary_executable, true);
  EXPECT_EQ(h.runtime_mode, "cdi");
  ASSERT_TRUE(h.packages_read) << h.packages_note;
  ASSERT_EQ(h.fabric_manager_packages.size(), 1u);
  EXPECT_EQ(h.fabric_manager_packages[0].version, "570.133.20");
  // the removed 550 package ("rc") is not installed
  for (const auto& p : h.driver_packages) EXPECT_EQ(p.version, "570.133.20") << p.name;
  EXPECT_EQ(h.toolkit_packages.size(), 2u);
  EXPECT_EQ(h.dcgm_packages.size(), 1u);
  expect_coherent();
}

TEST_F(StackRules, Containerd17LegacyModeWithDevCharLinksAndAToolkit114SpecIsCoherent) {
  compose({"engines/containerd17", "overlays/dev-char-links"});
  const HostStack h = read();
  ASSERT_EQ(h.engines.size(), 1u);
  EXPECT_EQ(h.engines[0].layouts.front().version, 2);
  EXPECT_EQ(h.engines[0].cdi_enabled, false);  // containerd 1.7's default
  EXPECT_EQ(h.dev_char_nvidia_links, true);
  EXPECT_EQ(h.runtime_mode, "auto");
  expect_coherent();
}

TEST_F(StackRules, CrioWithTheToolkitsDropInIsCoherent) {
  compose({"engines/crio", "overlays/dev-char-links"});
  const HostStack h = read();
  ASSERT_EQ(h.engines.size(), 1u);
  EXPECT_EQ(h.engines[0].engine, "cri-o");
  EXPECT_EQ(h.engines[0].files.size(), 2u);
  EXPECT_EQ(h.engines[0].systemd_cgroup, true);  // CRI-O's default cgroup_manager
  expect_coherent();
}

// The toolkit names its CRI-O drop-in 99-nvidia.toml (nvidia-container-toolkit
// cmd/nvidia-ctk/runtime/configure/configure.go) and CRI-O applies every file of crio.conf.d
// whatever its extension, so a reader that took only *.conf would miss the handler.
TEST_F(StackRules, CrioReadsTheToolkitsTomlDropInAndSkipsSubfolders) {
  compose({"engines/crio", "overlays/dev-char-links"});
  std::filesystem::create_directories(root() + "/etc/crio/crio.conf.d/50-folder.d");
  const HostStack h = read();
  ASSERT_EQ(h.engines.size(), 1u);
  const std::vector<std::string> files{"/etc/crio/crio.conf.d/10-crio.conf",
                                       "/etc/crio/crio.conf.d/99-nvidia.toml"};
  EXPECT_EQ(h.engines[0].files, files);
  EXPECT_TRUE(h.engines[0].handler_found);
  EXPECT_EQ(h.engines[0].handler_binary, "/usr/bin/nvidia-container-runtime");
  EXPECT_TRUE(h.unread.empty());
  expect_coherent();
}

TEST_F(StackRules, ANewerKernelWithItsModuleAndDkmsBuiltFromTheLoadedDriverAreCoherent) {
  compose({"engines/containerd2", "overlays/kernel-with-module", "overlays/dkms-match"});
  const HostStack h = read();
  EXPECT_EQ(h.kernel_has_module.at("6.8.0-51-generic"), true);
  EXPECT_EQ(h.kernel_module_version.at("6.8.0-49-generic"), "570.133.20");
  expect_coherent();
}

// --- CDI ----------------------------------------------------------------------------------------

TEST_F(StackRules, ASpecMadeForTheOldDriverFailsRegenerateIt) {
  compose({"engines/containerd2", "overlays/cdi-stale"});
  const StackJudgement j = expect_broken("stack.cdi_spec_stale");
  const Finding& f = finding(j, "stack.cdi_spec_stale");
  EXPECT_NE(f.detail.find("550.127.05"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("/etc/cdi/nvidia.yaml"), std::string::npos) << f.detail;
  EXPECT_NE(f.action.find("nvidia-ctk cdi generate"), std::string::npos) << f.action;
  // the files it names are gone too
  EXPECT_NE(finding(j, "stack.cdi_path_missing").detail.find("libcuda.so.550.127.05"), std::string::npos);
}

TEST_F(StackRules, ASpecThatDoesNotParseFailsNamingFileAndLine) {
  compose({"engines/containerd2", "overlays/cdi-unparseable"});
  const Finding& f = finding(expect_broken("stack.cdi_spec_unparseable"), "stack.cdi_spec_unparseable");
  EXPECT_NE(f.detail.find("/etc/cdi/nvidia.yaml: line 6"), std::string::npos) << f.detail;
}

TEST_F(StackRules, ASpecWhoseDevicesMissAGpuOnTheBusFails) {
  compose({"engines/containerd2", "overlays/cdi-one-gpu"});
  const Finding& f = finding(expect_broken("stack.cdi_gpus_not_covered"), "stack.cdi_gpus_not_covered");
  EXPECT_NE(f.detail.find("1 GPU device node(s)"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("2 GPU(s)"), std::string::npos) << f.detail;
}

TEST_F(StackRules, CdiModeWithoutASpecFails) {
  compose({"engines/containerd2"});
  std::filesystem::remove(root_ / "etc/cdi/nvidia.yaml");
  expect_broken("stack.cdi_no_spec");
}

TEST_F(StackRules, AJsonSpecIsReadLikeAYamlOne) {
  compose({"engines/containerd2"});
  std::filesystem::remove(root_ / "etc/cdi/nvidia.yaml");
  write("var/run/cdi/nvidia.json",
        R"({"cdiVersion":"0.5.0","kind":"nvidia.com/gpu","devices":[)"
        R"({"name":"0","containerEdits":{"deviceNodes":[{"path":"/dev/nvidia0"}]}},)"
        R"({"name":"1","containerEdits":{"deviceNodes":[{"path":"/dev/nvidia1"}]}}],)"
        R"("containerEdits":{"mounts":[{"hostPath":"/usr/lib/x86_64-linux-gnu/libcuda.so.570.133.20",)"
        R"("containerPath":"/usr/lib/x86_64-linux-gnu/libcuda.so.570.133.20"}]}})");
  const HostStack h = read();
  ASSERT_EQ(h.cdi_specs.size(), 1u);
  EXPECT_EQ(h.cdi_specs[0].devices.size(), 2u);
  expect_coherent();
}

// --- runtime ------------------------------------------------------------------------------------

TEST_F(StackRules, NoNvidiaHandlerFails) {
  compose({"engines/containerd2", "overlays/runtime-no-handler"});
  const Finding& f = finding(expect_broken("stack.runtime_handler_missing"), "stack.runtime_handler_missing");
  EXPECT_NE(f.detail.find("\"nvidia\""), std::string::npos) << f.detail;
}

TEST_F(StackRules, TheRuntimeClassHandlerNameIsTheOneLookedFor) {
  compose({"engines/containerd2"});
  StackReadOptions ro;
  ro.handler = "nvidia-cdi";
  const StackJudgement j =
      judge_stack(read_host_stack(root(), ro), StackRuleOptions{.handler = "nvidia-cdi"});
  EXPECT_TRUE(has(j, "stack.runtime_handler_missing")) << codes(j);
}

TEST_F(StackRules, AHandlerWhoseBinaryIsGoneFails) {
  compose({"engines/containerd2", "overlays/runtime-binary-missing"});
  const Finding& f = finding(expect_broken("stack.runtime_binary_missing"), "stack.runtime_binary_missing");
  EXPECT_NE(f.detail.find("/usr/local/nvidia/toolkit/nvidia-container-runtime"), std::string::npos)
      << f.detail;
}

TEST_F(StackRules, AHandlerBinaryThatIsNotExecutableFails) {
  compose({"engines/containerd2"});
  std::filesystem::permissions(root_ / "usr/bin/nvidia-container-runtime",
                               std::filesystem::perms::owner_read);
  expect_broken("stack.runtime_binary_missing");
}

TEST_F(StackRules, CdiModeWithCdiDisabledInContainerdFails) {
  compose({"engines/containerd2", "overlays/runtime-cdi-disabled"});
  expect_broken("stack.runtime_cdi_disabled");
}

TEST_F(StackRules, AVersion3ConfigInLayout2Fails) {
  compose({"engines/containerd17", "overlays/dev-char-links", "overlays/runtime-version-mismatch"});
  const Finding& f = finding(expect_broken("stack.runtime_config_version_mismatch"),
                             "stack.runtime_config_version_mismatch");
  EXPECT_NE(f.detail.find("/etc/containerd/config.toml: version = 3"), std::string::npos) << f.detail;
}

TEST_F(StackRules, ADropInThatDoesNotParseFailsNamingFileAndLine) {
  compose({"engines/containerd2", "overlays/runtime-unparseable"});
  const Finding& f =
      finding(expect_broken("stack.runtime_config_unparseable"), "stack.runtime_config_unparseable");
  EXPECT_NE(f.detail.find("/etc/containerd/conf.d/99-nvidia.toml: line 18"), std::string::npos) << f.detail;
}

// Docker's bundled containerd config has no nvidia handler and needs none where no kubelet runs.
TEST_F(StackRules, WithoutAKubeletAMissingHandlerIsNotJudged) {
  compose({"engines/containerd2", "overlays/runtime-no-handler"});
  std::filesystem::remove_all(root_ / "var/lib/kubelet");
  const StackJudgement j = judge_stack(read(), StackRuleOptions{});
  EXPECT_FALSE(has(j, "stack.runtime_handler_missing")) << codes(j);
  EXPECT_EQ(finding(j, "stack.runtime_handler_not_judged").severity, Severity::info);
  EXPECT_EQ(j.status, Status::pass) << j.reason;
}

TEST_F(StackRules, OnAKubernetesNodeTheHandlerIsJudged) {
  compose({"engines/containerd2"});
  EXPECT_FALSE(has(judge_stack(read(), StackRuleOptions{}), "stack.runtime_handler_not_judged"));
}

// The base tree is a Kubernetes node (var/lib/kubelet) with two GPUs: with no engine configuration
// its pods' runtime handler cannot be judged, which is inconclusive, naming where it looked.
TEST_F(StackRules, NoEngineConfiguredOnAKubernetesGpuNodeIsInconclusiveNamingWhereItLooked) {
  const StackJudgement j = judge_stack(read_host_stack(stack_data("base").string()), StackRuleOptions{});
  EXPECT_TRUE(has(j, "stack.runtime_not_configured")) << codes(j);
  EXPECT_EQ(finding(j, "stack.runtime_not_configured").severity, Severity::info);
  EXPECT_EQ(j.status, Status::error) << codes(j);
  for (const char* place : {"/etc/containerd/config.toml", "/etc/crio/crio.conf",
                            "/var/lib/rancher/k3s/agent/etc/containerd/config.toml",
                            "/var/lib/rancher/rke2/agent/etc/containerd/config.toml"}) {
    EXPECT_NE(j.reason.find(place), std::string::npos) << place << ": " << j.reason;
  }
}

// --- daemon-reload ------------------------------------------------------------------------------

TEST_F(StackRules, SystemdCgroupLegacyModeAndNoDevCharLinksWarnWithNvidiasRemedy) {
  compose({"engines/containerd17"});
  const Finding& f =
      finding(expect_broken("stack.daemon_reload_risk", Status::warn), "stack.daemon_reload_risk");
  EXPECT_NE(f.action.find("nvidia-ctk system create-dev-char-symlinks"), std::string::npos) << f.action;
}

TEST_F(StackRules, CdiModeHasNoDaemonReloadRisk) {
  compose({"engines/containerd2"});
  EXPECT_FALSE(has(judge(), "stack.daemon_reload_risk"));
}

// --- Fabric Manager -----------------------------------------------------------------------------

TEST_F(StackRules, FabricManagerOfAnotherVersionOnAnNvswitchSystemFails) {
  compose({"engines/containerd2", "overlays/fm-mismatch"});
  const Finding& f = finding(expect_broken("stack.fabric_manager_version_mismatch"),
                             "stack.fabric_manager_version_mismatch");
  EXPECT_NE(f.detail.find("570.124.06"), std::string::npos) << f.detail;
}

TEST_F(StackRules, FabricManagerMissingOnAnNvswitchSystemFails) {
  compose({"engines/containerd2", "overlays/fm-missing"});
  expect_broken("stack.fabric_manager_missing");
}

TEST_F(StackRules, NoNvswitchNeedsNoFabricManager) {
  compose({"engines/containerd2", "overlays/fm-missing"});
  std::filesystem::remove_all(root_ / "sys/bus/pci/devices/0000:05:00.0");
  expect_coherent();
}

// --- kernel -------------------------------------------------------------------------------------

TEST_F(StackRules, ANewerKernelWithoutAnNvidiaModuleFailsNamingIt) {
  compose({"engines/containerd2", "overlays/kernel-no-module"});
  const Finding& f = finding(expect_broken("stack.kernel_module_missing"), "stack.kernel_module_missing");
  EXPECT_NE(f.detail.find("6.8.0-51-generic"), std::string::npos) << f.detail;
  EXPECT_EQ(f.detail.find("6.8.0-45-generic"), std::string::npos) << "an older kernel is not the next boot";
}

TEST_F(StackRules, TheRunningKernelsModuleBuiltFromAnotherDriverFails) {
  compose({"engines/containerd2", "overlays/kernel-module-mismatch"});
  const Finding& f =
      finding(expect_broken("stack.kernel_module_version_mismatch"), "stack.kernel_module_version_mismatch");
  EXPECT_NE(f.detail.find("570.124.06"), std::string::npos) << f.detail;
}

// --- reboot pending -----------------------------------------------------------------------------

TEST_F(StackRules, APackagedDriverOtherThanTheLoadedOneWarnsUpgradedNotRebooted) {
  compose({"engines/containerd2", "overlays/reboot-pending"});
  const StackJudgement j = expect_broken("stack.reboot_pending", Status::warn);
  EXPECT_NE(finding(j, "stack.reboot_pending").detail.find("upgraded, not rebooted"), std::string::npos);
  const StackCheckSummary s = stack_check_summary(read(), j);
  EXPECT_TRUE(s.reboot_pending);
  EXPECT_EQ(s.status, "warn");
}

// No container gets a GPU that no driver drives.
TEST_F(StackRules, NoDriverLoadedWithGpusOnTheBusFails) {
  compose({"engines/containerd2"});
  std::filesystem::remove_all(root_ / "proc/driver");
  std::filesystem::remove_all(root_ / "sys/module");
  expect_broken("stack.driver_not_loaded", Status::fail);
}

TEST_F(StackRules, NoGpuOnThePciBusIsANotApplicableSkip) {
  compose({"engines/containerd2", "overlays/runtime-no-handler"});
  for (const char* bdf : {"0000:19:00.0", "0000:3b:00.0"})
    std::filesystem::remove_all(root_ / "sys/bus/pci/devices" / bdf);
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::skip) << codes(j);
  EXPECT_EQ(j.reason_code, "no_gpu");
  EXPECT_TRUE(j.findings.empty()) << codes(j);
}

// --- the findings table -------------------------------------------------------------------------

// Every rule's code is in baselines/health-findings.yaml with the rule's severity and action, so
// compare, diff and gate judge a stack finding as the check did.
TEST(StackRuleTable, EveryCodeIsInTheSharedFindingsTableWithItsSeverityAndAction) {
  std::vector<std::string> codes;
  for (const auto& c : stack_finding_codes()) codes.emplace_back(c.code);
  const SeverityTable t = load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", codes);
  for (const auto& c : stack_finding_codes()) {
    const SeverityRule& r = t.finding(c.code);
    EXPECT_EQ(r.severity, c.severity) << c.code;
    EXPECT_EQ(r.action, c.action) << c.code;
    EXPECT_FALSE(r.source.empty()) << c.code;
  }
}

}  // namespace
