// The unprivileged stack readers on fake sysfs / proc / etc trees laid out as the kernel and the
// packages lay them out (symlinks included), and the Node reader on a Node object in the API's
// own shape (tests/data/k8s/node-h200.json).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "device/host/container_runtimes.hpp"
#include "device/host/container_toolkit.hpp"
#include "device/host/driver_addons.hpp"
#include "device/host/k8s_node_info.hpp"
#include "device/host/nic_firmware.hpp"
#include "device/host/platform_firmware.hpp"
#include "runner/cli/stack_options.hpp"

using namespace gpuqual;
namespace fs = std::filesystem;

namespace {

class FakeTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::temp_directory_path() / ("gpuqual-stack-" + std::to_string(::getpid()) + "-" +
                                         ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(root_);
    fs::create_directories(root_);
  }
  void TearDown() override { fs::remove_all(root_); }

  void write(const std::string& rel, const std::string& text) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
  }
  // A relative symlink, as sysfs has them.
  void link(const std::string& rel, const std::string& target) {
    const fs::path p = root_ / rel;
    fs::create_directories(p.parent_path());
    fs::create_directory_symlink(fs::path(target), p);
  }
  std::string path(const std::string& rel = "") const { return (root_ / rel).string(); }

  // sysfs: an mlx5 HCA with its Ethernet port, an Intel port without RDMA, and loopback.
  void make_nic_sysfs() {
    const std::string mlx = "sys/devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0";
    const std::string ice = "sys/devices/pci0000:00/0000:00:1c.0/0000:01:00.0";
    write(mlx + "/infiniband/mlx5_0/fw_ver", "28.39.1002\n");
    link(mlx + "/infiniband/mlx5_0/device", "../../../0000:3b:00.0");
    link(mlx + "/driver", "../../../../bus/pci/drivers/mlx5_core");
    link("sys/bus/pci/drivers/mlx5_core/module", "../../../../module/mlx5_core");
    fs::create_directories(root_ / "sys/module/mlx5_core");
    fs::create_directories(root_ / (mlx + "/net/ens1f0np0"));
    link(mlx + "/net/ens1f0np0/device", "../../../0000:3b:00.0");
    fs::create_directories(root_ / (ice + "/net/eno1"));
    link(ice + "/net/eno1/device", "../../../0000:01:00.0");
    link(ice + "/driver", "../../../../bus/pci/drivers/ice");
    link("sys/bus/pci/drivers/ice/module", "../../../../module/ice");
    fs::create_directories(root_ / "sys/module/ice");
    fs::create_directories(root_ / "sys/devices/virtual/net/lo");
    link("sys/class/infiniband/mlx5_0",
         "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/infiniband/mlx5_0");
    link("sys/class/net/ens1f0np0", "../../devices/pci0000:3a/0000:3a:00.0/0000:3b:00.0/net/ens1f0np0");
    link("sys/class/net/eno1", "../../devices/pci0000:00/0000:00:1c.0/0000:01:00.0/net/eno1");
    link("sys/class/net/lo", "../../devices/virtual/net/lo");
  }

  fs::path root_;
};

}  // namespace

TEST_F(FakeTree, PlatformFirmwareComesFromDmiAndAMissingFileSaysWhy) {
  write("dmi/bios_vendor", "Dell Inc.\n");
  write("dmi/bios_version", "2.19.1\n");
  write("dmi/bios_date", "03/07/2024\n");
  write("dmi/board_vendor", "Dell Inc.\n");
  StackInventory s;
  read_platform_firmware(s, path("dmi"));
  EXPECT_EQ(s.bios_vendor.value, "Dell Inc.");
  EXPECT_EQ(s.bios_version.value, "2.19.1");
  EXPECT_EQ(s.bios_date.value, "03/07/2024");
  EXPECT_EQ(s.board_vendor.value, "Dell Inc.");
  EXPECT_FALSE(s.board_name.known());
  EXPECT_EQ(s.board_name.reason, path("dmi/board_name") + ": No such file or directory");
}

TEST_F(FakeTree, NicsCarryTheirModuleAndFirmwareAndVirtualInterfacesAreLeftOut) {
  make_nic_sysfs();
  std::string reason;
  const auto nics = read_nics(reason, path("sys/class"));
  ASSERT_TRUE(nics) << reason;
  ASSERT_EQ(nics->size(), 3u);
  const NicStack& hca = (*nics)[0];
  EXPECT_EQ(hca.name, "mlx5_0");
  EXPECT_EQ(hca.sysfs_class, "infiniband");
  EXPECT_EQ(hca.pci_address, "0000:3b:00.0");
  EXPECT_EQ(hca.driver.value, "mlx5_core");
  EXPECT_EQ(hca.firmware.value, "28.39.1002");
  const NicStack& eno = (*nics)[1];
  EXPECT_EQ(eno.name, "eno1");
  EXPECT_EQ(eno.driver.value, "ice");
  EXPECT_EQ(eno.pci_address, "0000:01:00.0");
  EXPECT_FALSE(eno.firmware.known());
  EXPECT_NE(eno.firmware.reason.find("sysfs has no firmware version"), std::string::npos);
  // The mlx5 Ethernet port takes the firmware of its RDMA function.
  const NicStack& port = (*nics)[2];
  EXPECT_EQ(port.name, "ens1f0np0");
  EXPECT_EQ(port.firmware.value, "28.39.1002");
  EXPECT_EQ(port.driver.value, "mlx5_core");
}

TEST_F(FakeTree, NicsOfASysfsThatCannotBeListedAreNullWithTheReason) {
  std::string reason;
  EXPECT_FALSE(read_nics(reason, path("sys/class")));
  EXPECT_EQ(reason, path("sys/class/net") + ": No such file or directory");
}

TEST_F(FakeTree, DriverAddonsFromProcSysAndThePackagesFiles) {
  write("proc/driver/nvidia/version",
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 19:28:00 UTC 2025\n"
        "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
  EXPECT_EQ(read_kernel_module_build(path("proc/driver/nvidia/version")).value,
            "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 19:28:00 UTC 2025");
  EXPECT_FALSE(read_kernel_module_build(path("nothing/version")).known());

  fs::create_directories(root_ / "sys/module/nvidia");
  EXPECT_EQ(read_nvidia_peermem(path("sys/module")).value, "not loaded");
  write("sys/module/nvidia_peermem/version", "570.133.20\n");
  EXPECT_EQ(read_nvidia_peermem(path("sys/module")).value, "loaded 570.133.20");
  EXPECT_FALSE(read_nvidia_peermem(path("no/module")).known());

  fs::create_directories(root_ / "proc/1");
  write("proc/1/comm", "systemd\n");
  EXPECT_EQ(read_fabric_manager("", path(), path("proc")).value, "not found");
  write("lib/systemd/system/nvidia-fabricmanager.service", "[Service]\n");
  EXPECT_EQ(read_fabric_manager("", path(), path("proc")).value, "installed, not running");
  // The kernel keeps 15 characters of the name.
  write("proc/4242/comm", "nv-fabricmanage\n");
  EXPECT_EQ(read_fabric_manager("", path(), path("proc")).value, "installed, running");
}

TEST_F(FakeTree, FabricManagerAndToolkitVersionsComeFromTheirCommands) {
  // Real executables printing what the real tools print (a shell script per tool).
  write("bin/nv-fabricmanager", "#!/bin/sh\necho 'Fabric Manager version is : 570.133.20'\n");
  write("bin/nvidia-ctk",
        "#!/bin/sh\necho 'NVIDIA Container Toolkit CLI version 1.17.4'\necho 'commit: 9d7b0e4'\n");
  fs::permissions(root_ / "bin/nv-fabricmanager", fs::perms::owner_all);
  fs::permissions(root_ / "bin/nvidia-ctk", fs::perms::owner_all);
  fs::create_directories(root_ / "proc");
  EXPECT_EQ(read_fabric_manager(path("bin"), path(), path("proc")).value, "570.133.20, not running");
  EXPECT_EQ(read_container_toolkit(path("bin")).value, "1.17.4");
  const StackFact none = read_container_toolkit(path("empty"));
  EXPECT_FALSE(none.known());
  EXPECT_EQ(none.reason, "neither nvidia-ctk nor nvidia-container-cli is on PATH");
}

TEST_F(FakeTree, VersionOutputIsStdoutAndStderrInOrderAndOnlyOnExitZero) {
  // A tool that says its version on stderr first, and one that fails after printing one.
  write("bin/on-stderr", "#!/bin/sh\necho 'tool version 2.1.0' >&2\necho 'commit: abc'\n");
  write("bin/fails", "#!/bin/sh\necho 'tool version 1.0'\nexit 3\n");
  fs::permissions(root_ / "bin/on-stderr", fs::perms::owner_all);
  fs::permissions(root_ / "bin/fails", fs::perms::owner_all);
  EXPECT_EQ(version_output(path("bin/on-stderr")), "tool version 2.1.0\ncommit: abc\n");
  EXPECT_EQ(version_output(path("bin/fails")), std::nullopt);
  EXPECT_EQ(version_output(path("bin/no-such-tool")), std::nullopt);
}

TEST_F(FakeTree, CdiSpecsAreListedByKindAndFile) {
  write("etc/cdi/nvidia.yaml", "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices: []\n");
  write("var/run/cdi/mofed.json",
        "{\"cdiVersion\": \"0.6.0\", \"kind\": \"nvidia.com/hca\", \"devices\": []}");
  write("var/run/cdi/broken.yaml", "kind: [unclosed\n");
  write("var/run/cdi/README", "not a spec");
  const StackFact f = read_cdi_specs({path("etc/cdi"), path("var/run/cdi"), path("missing")});
  EXPECT_EQ(f.value, "(unreadable)=" + path("var/run/cdi/broken.yaml") + ",nvidia.com/gpu=" +
                         path("etc/cdi/nvidia.yaml") + ",nvidia.com/hca=" + path("var/run/cdi/mofed.json"));
  EXPECT_EQ(read_cdi_specs({path("missing")}).value, "");
}

TEST(K8sNodeInfo, ReadsNodeInfoAndGpuResourcesFromANodeObject) {
  StackInventory s;
  read_k8s_node_info(s, std::string(GPUQUAL_TEST_DATA) + "/k8s/node-h200.json");
  EXPECT_EQ(s.k8s_kubelet_version.value, "v1.31.4");
  EXPECT_EQ(s.k8s_container_runtime.value, "containerd://1.7.24");
  EXPECT_EQ(s.k8s_kernel_version.value, "6.8.0-52-generic");
  EXPECT_EQ(s.k8s_os_image.value, "Ubuntu 22.04.5 LTS");
  EXPECT_EQ(s.k8s_gpu_capacity.value, "8");
  EXPECT_EQ(s.k8s_gpu_allocatable.value, "7");
}

TEST(K8sNodeInfo, WithoutANodeObjectEveryFactSaysSo) {
  StackInventory s;
  read_k8s_node_info(s, "");
  EXPECT_FALSE(s.k8s_kubelet_version.known());
  EXPECT_EQ(s.k8s_gpu_allocatable.reason, "no Node object given (--node-file or $GPUQUAL_NODE_FILE)");
}

TEST(K8sNodeInfo, AFileThatIsNotANodeIsBadInput) {
  StackInventory s;
  const std::string labels = std::string(GPUQUAL_TEST_DATA) + "/inventory/node-labels.downward";
  EXPECT_THROW(read_k8s_node_info(s, labels), InputError);
  const std::string record = std::string(GPUQUAL_TEST_DATA) + "/golden/synthetic-healthy.json";
  try {
    read_k8s_node_info(s, record);
    FAIL() << "a verdict was read as a Node";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("$.kind: not a Kubernetes Node object"), std::string::npos)
        << e.what();
  }
}

TEST(PlatformFlag, AcceptsNameEqualsVersionAndRefusesTheRest) {
  EXPECT_EQ(platform_flag_problem("gpu-operator=v25.10.0"), "");
  EXPECT_EQ(platform_flag_problem("dcgm-exporter=4.2.3-4.1.1"), "");
  EXPECT_NE(platform_flag_problem("gpu-operator"), "");
  EXPECT_NE(platform_flag_problem("=v1"), "");
  EXPECT_NE(platform_flag_problem("GPU Operator=v1"), "");
  EXPECT_NE(platform_flag_problem("gpu-operator="), "");
  InventoryOptions o;
  apply_stack_flags(StackFlags{"node.json", {"gpu-operator=v25.10.0", "k8s-device-plugin=v0.17.0"}}, o);
  EXPECT_EQ(o.k8s_node_file, "node.json");
  EXPECT_EQ(o.platform.at("gpu-operator"), "v25.10.0");
  EXPECT_EQ(o.platform.at("k8s-device-plugin"), "v0.17.0");
  InventoryOptions twice;
  EXPECT_THROW(apply_stack_flags(StackFlags{"", {"gpu-operator=v1", "gpu-operator=v2"}}, twice), InputError);
}
