// The `stack` rules that say whether the node boots into a working GPU stack and whether its
// container engine can be judged at all (docs/stack-check.md, "Kernel", "Reboot pending",
// "Runtime"): no NVIDIA module loaded while GPUs are on the bus fails; every installed kernel's
// DKMS module must be the installed driver's; a Kubernetes GPU node whose engine configuration
// cannot be read is inconclusive; k3s's own containerd is read; `probe stack` escapes what it
// prints.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "stack_trees.hpp"

using namespace gpuqual;
using gpuqual::testing::read_text;
using gpuqual::testing::stack_data;
using gpuqual::testing::StackTree;

namespace {

namespace fs = std::filesystem;

class StackBootRules : public StackTree {
 protected:
  void unload_driver() {
    fs::remove_all(root_ / "proc/driver");
    fs::remove_all(root_ / "sys/module");
  }
  void boot_into(const std::string& kernel) { write("proc/sys/kernel/osrelease", kernel + "\n"); }
  // A DKMS build of `version` for `kernel`, as dkms(8) leaves it under /var/lib/dkms.
  void dkms_build(const std::string& version, const std::string& kernel) {
    write("var/lib/dkms/nvidia/" + version + "/" + kernel + "/x86_64/module/nvidia.ko.zst", "");
  }
  // The link DKMS makes to the build it installed into /lib/modules/<kernel>.
  void dkms_installed(const std::string& version, const std::string& kernel) {
    fs::create_directories(root_ / "var/lib/dkms/nvidia");
    fs::create_symlink(version + "/" + kernel + "/x86_64",
                       root_ / ("var/lib/dkms/nvidia/kernel-" + kernel + "-x86_64"));
  }
  void bind_to_vfio(const std::string& bdf) {
    fs::create_directories(root_ / "sys/bus/pci/drivers/vfio-pci");
    fs::create_symlink("../../../bus/pci/drivers/vfio-pci", root_ / "sys/bus/pci/devices" / bdf / "driver");
  }
  std::vector<Finding> all(const StackJudgement& j, const std::string& code) {
    std::vector<Finding> out;
    for (const auto& f : j.findings) {
      if (f.code == code) out.push_back(f);
    }
    return out;
  }
};

// --- no module loaded -----------------------------------------------------------------------------

// Rebooted into the newer kernel DKMS never built for: GPUs on the bus, no module loaded.
TEST_F(StackBootRules, RebootedIntoAKernelWithoutTheModuleFailsNamingTheKernel) {
  compose({"engines/containerd2", "overlays/kernel-no-module"});
  boot_into("6.8.0-51-generic");
  unload_driver();
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::fail) << codes(j);
  ASSERT_TRUE(has(j, "stack.driver_not_loaded")) << codes(j);
  const Finding f = finding(j, "stack.driver_not_loaded");
  EXPECT_EQ(f.severity, Severity::fail);
  EXPECT_NE(f.detail.find("2 GPU(s) on the PCI bus"), std::string::npos) << f.detail;
  EXPECT_NE(f.detail.find("the running kernel 6.8.0-51-generic has no NVIDIA module"), std::string::npos)
      << f.detail;
}

// A VM host that passes its GPUs through (vfio-pci) wants no host driver for them.
TEST_F(StackBootRules, GpusBoundToVfioNeedNoHostDriverButOneUnboundGpuStillFails) {
  compose({"engines/containerd2"});
  unload_driver();
  bind_to_vfio("0000:19:00.0");
  const StackJudgement one = judge();
  ASSERT_TRUE(has(one, "stack.driver_not_loaded")) << codes(one);
  EXPECT_NE(finding(one, "stack.driver_not_loaded").detail.find("1 GPU(s)"), std::string::npos);
  bind_to_vfio("0000:3b:00.0");
  const HostStack h = read();
  EXPECT_EQ(h.pci_gpus, 2);
  EXPECT_EQ(h.pci_gpus_passthrough, 2);
  EXPECT_FALSE(has(judge(), "stack.driver_not_loaded")) << codes(judge());
}

// --- every installed kernel's module ---------------------------------------------------------------

TEST_F(StackBootRules, TheNextKernelsModuleBuiltFromAnotherDriverThanTheInstalledOneFails) {
  compose({"engines/containerd2", "overlays/kernel-with-module", "overlays/dkms-match"});
  dkms_build("570.124.06", "6.8.0-51-generic");
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::fail) << codes(j);
  const auto found = all(j, "stack.kernel_module_version_mismatch");
  ASSERT_EQ(found.size(), 1u) << codes(j);  // the running kernel's module is the loaded driver's
  EXPECT_NE(found[0].detail.find("kernel 6.8.0-51-generic's NVIDIA module is built from driver 570.124.06"),
            std::string::npos)
      << found[0].detail;
  EXPECT_NE(found[0].detail.find("the installed driver is 570.133.20"), std::string::npos) << found[0].detail;
  // An older installed kernel is held to the same rule: any installed kernel can be booted.
  fs::remove_all(root_ / "var/lib/dkms/nvidia/570.124.06");
  dkms_build("550.127.05", "6.8.0-45-generic");
  // A build DKMS did not install into /lib/modules is nothing to boot: not judged.
  EXPECT_FALSE(has(judge(), "stack.kernel_module_version_mismatch")) << codes(judge());
  write("lib/modules/6.8.0-45-generic/updates/dkms/nvidia.ko.zst", "");
  const auto older = all(judge(), "stack.kernel_module_version_mismatch");
  ASSERT_EQ(older.size(), 1u) << codes(judge());
  EXPECT_NE(older[0].detail.find("6.8.0-45-generic"), std::string::npos) << older[0].detail;
}

TEST_F(StackBootRules, TheNextKernelsModuleOfTheInstalledDriverIsCoherent) {
  compose({"engines/containerd2", "overlays/kernel-with-module", "overlays/dkms-match"});
  dkms_build("570.133.20", "6.8.0-51-generic");
  const HostStack h = read();
  EXPECT_EQ(h.kernel_module_version.at("6.8.0-51-generic"), "570.133.20");
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::pass) << codes(j);
  EXPECT_FALSE(has(j, "stack.kernel_module_version_mismatch")) << codes(j);
}

// The running kernel's module equals the loaded driver, but the packages were upgraded and DKMS
// did not rebuild it: the next boot loads a module of the old driver under the new libraries.
TEST_F(StackBootRules, ARunningKernelsModuleLeftBehindByAPackageUpgradeFails) {
  compose({"engines/containerd2", "overlays/dkms-match", "overlays/reboot-pending"});
  const StackJudgement j = judge();
  const auto found = all(j, "stack.kernel_module_version_mismatch");
  ASSERT_EQ(found.size(), 1u) << codes(j);
  EXPECT_NE(found[0].detail.find("the running kernel 6.8.0-49-generic's NVIDIA module is built from driver "
                                 "570.133.20, the installed driver is 570.148.08"),
            std::string::npos)
      << found[0].detail;
  EXPECT_EQ(j.status, Status::fail) << codes(j);
}

// Where DKMS built two versions for one kernel, its kernel-<kernel>-<arch> link names the one it
// installed: neither the first listed nor the loaded driver's is assumed.
TEST_F(StackBootRules, TheDkmsInstalledLinkDecidesBetweenTwoBuildsOfOneKernel) {
  compose({"engines/containerd2", "overlays/kernel-with-module", "overlays/dkms-match"});
  dkms_build("570.124.06", "6.8.0-51-generic");
  dkms_build("570.133.20", "6.8.0-51-generic");
  dkms_installed("570.124.06", "6.8.0-51-generic");
  EXPECT_EQ(read().kernel_module_version.at("6.8.0-51-generic"), "570.124.06");
  EXPECT_TRUE(has(judge(), "stack.kernel_module_version_mismatch")) << codes(judge());
  fs::remove(root_ / "var/lib/dkms/nvidia/kernel-6.8.0-51-generic-x86_64");
  dkms_installed("570.133.20", "6.8.0-51-generic");
  EXPECT_EQ(read().kernel_module_version.at("6.8.0-51-generic"), "570.133.20");
  EXPECT_EQ(judge().status, Status::pass) << codes(judge());
}

// --- the container engine ---------------------------------------------------------------------------

TEST_F(StackBootRules, K3sOwnContainerdIsReadAndItsNvidiaRuntimeJudged) {
  compose({"engines/k3s"});
  const HostStack h = read();
  ASSERT_EQ(h.engines.size(), 1u);
  EXPECT_EQ(h.engines[0].engine, "containerd (k3s)");
  EXPECT_EQ(h.engines[0].files.front(), "/var/lib/rancher/k3s/agent/etc/containerd/config.toml");
  EXPECT_TRUE(h.engines[0].handler_found);
  EXPECT_EQ(h.engines[0].handler_binary, "/usr/bin/nvidia-container-runtime");
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::pass) << codes(j);
  // The handler rules hold for it as for any containerd: its binary gone fails.
  fs::remove(root_ / "usr/bin/nvidia-container-runtime");
  EXPECT_TRUE(has(judge(), "stack.runtime_binary_missing")) << codes(judge());
}

TEST_F(StackBootRules, Rke2TemplateWithoutTemplateActionsIsReadInPlaceOfTheRenderedFile) {
  compose({});
  const std::string rendered =
      read_text(stack_data("engines/k3s/var/lib/rancher/k3s/agent/etc/containerd/config.toml"));
  write("var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl", rendered);
  const HostStack h = read();
  ASSERT_EQ(h.engines.size(), 1u);
  EXPECT_EQ(h.engines[0].engine, "containerd (rke2)");
  EXPECT_TRUE(h.engines[0].handler_found);
  EXPECT_EQ(judge().status, Status::pass) << codes(judge());
}

// A Go template cannot be judged without the values k3s fills in: could not read, never a pass.
TEST_F(StackBootRules, AK3sTemplateWithActionsAndNoRenderedConfigIsInconclusiveNamingIt) {
  compose({});
  write(
      "var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl",
      "{{ template \"base\" . }}\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.\"nvidia\"]\n");
  const StackJudgement j = judge();
  EXPECT_EQ(j.status, Status::error) << codes(j);
  EXPECT_NE(j.reason.find("/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl"), std::string::npos)
      << j.reason;
}

// Where no kubelet runs (a Slurm or Docker host) no pod asks for the handler: information only.
TEST_F(StackBootRules, NoEngineConfigurationWithoutAKubeletIsNotInconclusive) {
  compose({});
  fs::remove_all(root_ / "var/lib/kubelet");
  const StackJudgement j = judge();
  EXPECT_TRUE(has(j, "stack.runtime_not_configured")) << codes(j);
  EXPECT_EQ(j.status, Status::pass) << codes(j);
}

// --- probe stack's table ------------------------------------------------------------------------------

// A file name is the host's, not gpuqual's: ESC and OSC bytes in it are shown escaped, never
// written raw to the terminal (core/base/text_escape.hpp).
TEST_F(StackBootRules, ProbeStackEscapesFileNamesInItsTable) {
  compose({"engines/containerd2"});
  const std::string evil = "\x1b]0;owned\x07\x1b[31mred.yaml";
  write("etc/cdi/" + evil, "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\n  devices: [\n");
  const auto r =
      gpuqual::testing::run_cli("probe stack --root " + gpuqual::testing::shell_quote(root()), root_);
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find('\x07'), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\\x1b]0;owned\\x07\\x1b[31mred.yaml"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("stack.cdi_spec_unparseable"), std::string::npos) << r.out;
}

}  // namespace
