// GPUs on the PCI bus against the GPUs the driver listed, driver-version consistency and the
// reboot note: the sysfs reader on a fake sysfs tree, the judging in core on built records, and
// `compare` / `gate` / `diff` end to end on the fixture records.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/rules/driver_consistency.hpp"
#include "core/verdict/gpu_presence.hpp"
#include "device/host/host_facts.hpp"
#include "device/host/pci_gpus.hpp"
#include "device/node/library_versions.hpp"
#include "device/nvml/nvml_devices.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

const std::string kData = GPUQUAL_TEST_DATA;

// A /sys/bus/pci/devices look-alike: one folder per function with vendor, device and class
// files and a `driver` symlink, as the kernel lays them out.
class PciSysfs : public ScratchDirTest {
 protected:
  PciSysfs() : ScratchDirTest("fake-sysfs") {}
  fs::path add(const std::string& bus_id, const std::string& vendor, const std::string& device,
               const std::string& pci_class, const std::string& driver = "") {
    const fs::path dir = scratch_ / "devices" / bus_id;
    fs::create_directories(dir);
    std::ofstream(dir / "vendor") << vendor << "\n";
    std::ofstream(dir / "device") << device << "\n";
    std::ofstream(dir / "class") << pci_class << "\n";
    if (!driver.empty()) {
      fs::create_directories(scratch_ / "drivers" / driver);
      fs::create_directory_symlink(scratch_ / "drivers" / driver, dir / "driver");
    }
    return dir;
  }
  std::string devices() const { return (scratch_ / "devices").string(); }
};

std::vector<std::string> codes(const std::vector<Finding>& findings) {
  std::vector<std::string> out;
  for (const auto& f : findings) out.push_back(f.code + ":" + std::string(to_string(f.severity)));
  return out;
}

// Two GPUs listed by NVML/CUDA at 00000000:10:00.0 and 00000000:11:00.0 (make_gpu's bus ids).
RunRecord record_with_bus(std::vector<PciGpu> pci) {
  RunRecord r = make_record(2);
  r.node.pci_gpus = std::move(pci);
  return r;
}

PciGpu on_bus(const std::string& bus_id, const std::string& driver = "nvidia") {
  return PciGpu{bus_id, "0x2335", "0x030200", driver};
}

}  // namespace

TEST_F(PciSysfs, ReadsNvidiaDisplayAnd3dControllersOnly) {
  add("0000:3b:00.0", "0x10de", "0x2335", "0x030200", "nvidia");           // H200 (3D controller)
  add("0000:19:00.0", "0x10de", "0x2330", "0x030000");                     // VGA class, no driver bound
  add("0000:19:00.1", "0x10de", "0x22a3", "0x040300", "snd_hda_intel");    // the GPU's audio function
  add("0000:c1:00.0", "0x10de", "0x22a3", "0x068000", "nvidia-nvswitch");  // NVSwitch: a bridge
  add("0000:00:02.0", "0x8086", "0x0b5a", "0x030000", "i915");             // another vendor's GPU
  const fs::path vf = add("0000:3b:00.4", "0x10de", "0x2335", "0x030200", "nvidia");  // SR-IOV VF
  fs::create_directory_symlink(scratch_ / "devices" / "0000:3b:00.0", vf / "physfn");

  const auto gpus = read_pci_gpus(devices());
  ASSERT_TRUE(gpus.has_value());
  ASSERT_EQ(gpus->size(), 2u);
  EXPECT_EQ((*gpus)[0].bus_id, "0000:19:00.0");  // sorted by bus id
  EXPECT_EQ((*gpus)[0].pci_class, "0x030000");
  EXPECT_EQ((*gpus)[0].driver, "");
  EXPECT_EQ((*gpus)[1].bus_id, "0000:3b:00.0");
  EXPECT_EQ((*gpus)[1].device_id, "0x2335");
  EXPECT_EQ((*gpus)[1].driver, "nvidia");
}

TEST_F(PciSysfs, AnUnreadableBusIsNotReadNotZeroGpus) {
  EXPECT_FALSE(read_pci_gpus((scratch_ / "no-such-dir").string()).has_value());
  fs::create_directories(scratch_ / "devices");
  const auto none = read_pci_gpus(devices());
  ASSERT_TRUE(none.has_value());
  EXPECT_TRUE(none->empty());
}

TEST(PciClass, DisplayAnd3dOnly) {
  EXPECT_TRUE(is_gpu_pci_class(0x030200));
  EXPECT_TRUE(is_gpu_pci_class(0x030000));
  EXPECT_TRUE(is_gpu_pci_class(0x030001));
  EXPECT_FALSE(is_gpu_pci_class(0x030100));  // XGA
  EXPECT_FALSE(is_gpu_pci_class(0x068000));
  EXPECT_FALSE(is_gpu_pci_class(0x040300));
}

TEST(GpuPresence, EveryGpuOnTheBusListedIsNoFinding) {
  // sysfs writes a 4-digit domain and lower case, NVML 8 digits: the same bus.
  EXPECT_TRUE(
      gpu_presence_findings(record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0")})).empty());
}

TEST(GpuPresence, AGpuOnTheBusTheDriverDidNotListFails) {
  const auto f = gpu_presence_findings(
      record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0"), on_bus("0000:9a:00.0")}));
  ASSERT_EQ(codes(f), std::vector<std::string>{"gpu.not_visible:fail"});
  EXPECT_NE(f[0].detail.find("0000:9a:00.0"), std::string::npos) << f[0].detail;
}

TEST(GpuPresence, AGpuWithNoDriverBoundFailsAndOneHandedToAVmIsInfo) {
  const auto f = gpu_presence_findings(
      record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0"), on_bus("0000:9a:00.0", ""),
                       on_bus("0000:9b:00.0", "vfio-pci")}));
  ASSERT_EQ(codes(f), (std::vector<std::string>{"gpu.not_visible:fail", "gpu.passthrough:info"}));
  EXPECT_NE(f[0].detail.find("no driver bound"), std::string::npos) << f[0].detail;
  EXPECT_NE(f[1].detail.find("vfio-pci"), std::string::npos) << f[1].detail;
}

TEST(GpuPresence, GpusOutsideTheContainersAllocationAreNotMissing) {
  RunRecord r = record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0"), on_bus("0000:9a:00.0")});
  r.node.visible_devices = "NVIDIA_VISIBLE_DEVICES=GPU-a,GPU-b";
  EXPECT_EQ(codes(gpu_presence_findings(r)), std::vector<std::string>{"gpu.outside_allocation:info"});
  // "all" hands every GPU over: one missing is missing.
  r.node.visible_devices = "NVIDIA_VISIBLE_DEVICES=all";
  EXPECT_EQ(codes(gpu_presence_findings(r)), std::vector<std::string>{"gpu.not_visible:fail"});
}

TEST(GpuPresence, MigInstancesShareTheirParentsBusId) {
  RunRecord r = record_with_bus({on_bus("0000:10:00.0")});
  r.gpus[1].pci_bus_id = r.gpus[0].pci_bus_id;  // two MIG instances of one GPU
  r.gpus[0].mig_enabled = r.gpus[1].mig_enabled = true;
  EXPECT_TRUE(gpu_presence_findings(r).empty());
}

TEST(GpuPresence, WithoutBusIdsOnlyTheCountIsCompared) {
  RunRecord r = record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0"), on_bus("0000:12:00.0")});
  r.gpus[1].pci_bus_id.clear();
  const auto f = gpu_presence_findings(r);
  ASSERT_EQ(codes(f), std::vector<std::string>{"gpu.not_visible:fail"});
  EXPECT_EQ(f[0].value, 1.0);
  r.node.pci_gpus->pop_back();
  EXPECT_TRUE(gpu_presence_findings(r).empty());
}

TEST(GpuPresence, NoBusReadingNoFinding) {
  RunRecord r = make_record(2);
  r.gpus.pop_back();
  EXPECT_TRUE(gpu_presence_findings(r).empty());
}

TEST(DriverConsistency, OneReleaseEverywhereIsNoFinding) {
  NodeFacts n;
  n.kernel_module_version = n.nvml_driver_version = n.libcuda_version = "580.95.05";
  n.cuda_driver_version = n.nvml_cuda_driver_version = "13.0";
  EXPECT_TRUE(driver_consistency_findings(n).empty());
  EXPECT_TRUE(driver_consistency_findings(NodeFacts{}).empty());  // nothing read, nothing compared
}

TEST(DriverConsistency, AModuleOlderThanTheLibrariesFailsNamingEach) {
  NodeFacts n;
  n.kernel_module_version = "570.133.20";
  n.nvml_driver_version = "580.95.05";
  const auto f = driver_consistency_findings(n);
  ASSERT_EQ(codes(f), std::vector<std::string>{"driver.version_mismatch:fail"});
  EXPECT_NE(f[0].detail.find("kernel module 570.133.20"), std::string::npos) << f[0].detail;
  EXPECT_NE(f[0].detail.find("NVML 580.95.05"), std::string::npos) << f[0].detail;
  EXPECT_FALSE(f[0].action.empty());
  n.nvml_driver_version.clear();
  n.libcuda_version = "580.95.05";
  EXPECT_EQ(codes(driver_consistency_findings(n)), std::vector<std::string>{"driver.version_mismatch:fail"});
}

TEST(DriverConsistency, CudaVersionsMustAgree) {
  NodeFacts n;
  n.cuda_driver_version = "12.8";
  n.nvml_cuda_driver_version = "13.0";
  const auto f = driver_consistency_findings(n);
  ASSERT_EQ(codes(f), std::vector<std::string>{"driver.version_mismatch:fail"});
  EXPECT_NE(f[0].detail.find("12.8"), std::string::npos);
}

TEST(RebootNote, SaysWhetherTheBootIdChanged) {
  NodeFacts before, after;
  EXPECT_FALSE(reboot_note(before, after).has_value());
  before.boot_id = after.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  EXPECT_EQ(*reboot_note(before, after), "the node did not reboot between the runs (same boot id)");
  after.boot_id = "0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6";
  EXPECT_EQ(*reboot_note(before, after), "the node rebooted between the runs (boot id 6f1c9e0a → 0b8e4f2c)");
}

TEST(HostFacts, BootIdAndUptime) {
  EXPECT_EQ(parse_uptime("12345.67 98765.43\n"), 12345.67);
  EXPECT_FALSE(parse_uptime("").has_value());
  EXPECT_FALSE(parse_uptime("abc 1").has_value());
  EXPECT_FALSE(parse_uptime("-3 1").has_value());
  // This machine's own files: a boot id is a UUID, uptime is positive.
  EXPECT_EQ(read_boot_id().size(), 36u);
  ASSERT_TRUE(read_uptime_s().has_value());
  EXPECT_GT(*read_uptime_s(), 0);
  EXPECT_EQ(read_boot_id("/no/such/file"), "");
}

TEST(LibraryVersions, LibcudaReleaseFromTheProcessMaps) {
  const std::string maps =
      "7f00-7f01 r--p 00000000 08:01 123 /usr/lib/x86_64-linux-gnu/libcuda.so.1\n"
      "7f01-7f02 r-xp 00001000 08:01 124 /usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05\n";
  EXPECT_EQ(parse_mapped_library_version(maps, "libcuda.so."), "580.95.05");
  EXPECT_EQ(parse_mapped_library_version("7f00-7f01 r--p 0 0 1 /opt/x/mylibcuda.so.1.2\n", "libcuda.so."),
            "");
  EXPECT_EQ(parse_mapped_library_version("", "libcuda.so."), "");
}

TEST(NvmlDevices, VirtualizationModeNames) {
  EXPECT_EQ(virtualization_mode_name(NVML_GPU_VIRTUALIZATION_MODE_NONE), "none");
  EXPECT_EQ(virtualization_mode_name(NVML_GPU_VIRTUALIZATION_MODE_VGPU), "vgpu");
  EXPECT_EQ(virtualization_mode_name(NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU), "host_vgpu");
  EXPECT_EQ(virtualization_mode_name(99), "");
}

TEST(GpuPresenceJudging, CompareFailsWithoutABaselineAndDiffFailsWhateverTheBefore) {
  const RunRecord healthy = record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0")});
  RunRecord lost = record_with_bus({on_bus("0000:10:00.0"), on_bus("0000:11:00.0"), on_bus("0000:9a:00.0")});
  const Verdict c = compare_record(lost, nullptr, CompareOptions{});
  EXPECT_EQ(c.outcome, Outcome::fail);
  EXPECT_TRUE(std::any_of(c.findings.begin(), c.findings.end(), [](const FindingRow& f) {
    return f.finding.code == "gpu.not_visible" && f.status == Status::fail && f.check == "inventory";
  }));
  // The same GPU missing before too does not excuse it after.
  const Verdict d = diff_records(lost, lost, DiffOptions{});
  EXPECT_EQ(d.outcome, Outcome::fail);
  EXPECT_NE(d.reasons.front().find("gpu.not_visible"), std::string::npos) << d.reasons.front();
  EXPECT_NE(diff_records(healthy, healthy, DiffOptions{}).outcome, Outcome::fail);
}

TEST(GpuPresenceJudging, DiffNotesTheReboot) {
  RunRecord before = make_record(1), after = make_record(1);
  before.checks.push_back(CheckResult{"health", Status::pass, "", "", 1, {}, {}, {}, {}});
  after.checks = before.checks;
  before.node.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  after.node.boot_id = "0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6";
  const Verdict d = diff_records(before, after, DiffOptions{});
  EXPECT_TRUE(std::find(d.reasons.begin(), d.reasons.end(),
                        "the node rebooted between the runs (boot id 6f1c9e0a → 0b8e4f2c)") !=
              d.reasons.end());
}

class CliGpuPresence : public ScratchDirTest {
 protected:
  CliGpuPresence() : ScratchDirTest("cli-gpu-presence") {}
  CliRun gpuqual(const std::string& args) { return run_cli(args, scratch_, "GPUQUAL_BASELINES_DIR="); }
  static std::string record(const std::string& name) {
    return shell_quote(kData + "/records/" + name + ".json");
  }
  static std::string baselines() { return " --baselines-dir " + shell_quote(kData + "/baselines"); }
};

TEST_F(CliGpuPresence, CompareAndGateFailAGpuOnTheBusTheDriverLost) {
  const CliRun c = gpuqual("compare " + record("synthetic-gpu-not-visible") + baselines());
  EXPECT_EQ(c.code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("gpu.not_visible"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("0000:5d:00.0"), std::string::npos) << c.out;
  const CliRun g = gpuqual("gate " + record("synthetic-healthy") + " " + record("synthetic-gpu-not-visible") +
                           baselines());
  EXPECT_EQ(g.code, 1) << g.out << g.err;
  const CliRun d = gpuqual("diff " + record("synthetic-healthy") + " " + record("synthetic-gpu-not-visible"));
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_NE(d.out.find("gpu.not_visible"), std::string::npos) << d.out;
}

TEST_F(CliGpuPresence, CompareGateAndDiffFailADriverUpgradedWithoutReboot) {
  const CliRun c = gpuqual("compare " + record("synthetic-driver-mismatch") + baselines());
  EXPECT_EQ(c.code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("driver.version_mismatch"), std::string::npos) << c.out;
  const CliRun g = gpuqual("gate " + record("synthetic-healthy") + " " + record("synthetic-driver-mismatch") +
                           baselines());
  EXPECT_EQ(g.code, 1) << g.out << g.err;
  const CliRun d = gpuqual("diff " + record("synthetic-healthy") + " " + record("synthetic-driver-mismatch"));
  EXPECT_EQ(d.code, 1) << d.out << d.err;
}
