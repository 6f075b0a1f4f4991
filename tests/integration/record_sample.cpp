// Test helper for tests/integration/validate_fixtures.py: the schema test needs the C++ writer's
// real output and the C++ reader's real verdict on many files, without a GPU.
//
//   gpuqual_record_sample write DIR    writes DIR/full.json (every optional field set) and
//                                      DIR/minimal.json (every optional field unset)
//   gpuqual_record_sample read FILE... prints one line per file: "ok" or "error: <message>";
//                                      exit 0 when all were read, 3 when any was rejected
//   gpuqual_record_sample units        prints the units the reader knows, one per line
#include <cstdio>
#include <string>

#include "core/base/input_error.hpp"
#include "core/base/units.hpp"
#include "core/record/metric_summary.hpp"
#include "core/record/record_io.hpp"

namespace {

using namespace gpuqual;

GpuInfo full_gpu(int index) {
  GpuInfo g;
  g.index = index;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-5b0e4c3a-0000-4000-8000-00000000000" + std::to_string(index);
  g.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  g.compute_capability = "9.0";
  g.sm_count = 132;
  g.memory_bytes = 143771ull << 20;
  g.ecc_enabled = true;
  g.mig_enabled = false;
  g.persistence_enabled = true;
  g.pcie_max_gen = 5;
  g.pcie_max_width = 16;
  g.power_limit_w = 700;
  g.vbios = "96.00.A5.00.01";
  g.nvlink_count = 18;
  g.virtualization_mode = "none";
  return g;
}

// Every stack fact read once, and a null-with-reason in each kind of stack object that has facts.
StackInventory full_stack() {
  StackInventory s;
  s.bios_vendor = StackFact::read("Dell Inc.");
  s.bios_version = StackFact::read("2.19.1");
  s.bios_date = StackFact::read("03/07/2024");
  s.board_vendor = StackFact::read("Dell Inc.");
  s.board_name = StackFact::read("0NR4NP");
  s.nics = std::vector<NicStack>{
      {"mlx5_0", "infiniband", "0000:3b:00.0", StackFact::read("mlx5_core"), StackFact::read("28.39.1002")},
      {"eno1", "net", "0000:01:00.0", StackFact::read("ice"),
       StackFact::unread("sysfs has no firmware version for this interface (ethtool -i shows it)")}};
  for (int i = 0; i < 2; ++i) {
    GpuFirmware f;
    f.gpu = i;
    f.uuid = full_gpu(i).uuid;
    f.inforom_image = StackFact::read("G520.0200.00.05");
    f.inforom_oem = StackFact::read("2.1");
    f.inforom_ecc = StackFact::read("7.16");
    f.inforom_power = i == 0 ? StackFact::read("5.0")
                             : StackFact::unread("nvmlDeviceGetInforomVersion: Not Supported (power)");
    f.gsp_firmware = StackFact::read("570.133.20");
    s.gpu_firmware.push_back(f);
  }
  s.kernel_module_build = StackFact::read(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 19:28:00 UTC 2025");
  s.fabric_manager = StackFact::read("570.133.20, running");
  s.nvidia_peermem = StackFact::read("loaded 570.133.20");
  s.container_toolkit = StackFact::read("1.17.4");
  s.cdi_specs = StackFact::read("nvidia.com/gpu=/etc/cdi/nvidia.yaml");
  s.k8s_kubelet_version = StackFact::read("v1.31.4");
  s.k8s_container_runtime = StackFact::read("containerd://1.7.24");
  s.k8s_kernel_version = StackFact::read("6.1.0-28-amd64");
  s.k8s_os_image = StackFact::read("Debian GNU/Linux 12 (bookworm)");
  s.k8s_gpu_capacity = StackFact::read("2");
  s.k8s_gpu_allocatable = StackFact::read("2");
  s.platform = {{"gpu-operator", "v25.10.0"}};
  s.stack_check = StackCheckSummary{
      .status = "warn",
      .findings = {"stack.reboot_pending"},
      .reboot_pending = true,
      .cdi = "/etc/cdi/nvidia.yaml nvidia.com/gpu driver 570.133.20 5 devices",
      .runtime = "containerd handler=/usr/bin/nvidia-container-runtime cdi systemd; mode cdi"};
  return s;
}

// A per-slice run (docs/mig.md, "Measuring each slice"): rows on GPU 0's MIG device MIG-7e1d.
CheckResult slice_result() {
  CheckResult slice;
  slice.name = "hbm";
  slice.status = Status::warn;
  slice.reason = "GPU 0 MIG-7e1d (1c.3g.71gb): throttled";
  slice.started_at = "2026-11-30T12:00:30Z";
  slice.duration_s = 3;
  slice.per_gpu = {{0, Status::warn, "throttled", "", "MIG-7e1d"}};
  Metric copy = summarize_metric("hbm.copy.gbps", "GB/s", Direction::higher, 0, {1700, 1710, 1705});
  copy.mig_device = "MIG-7e1d";
  slice.metrics.push_back(copy);
  slice.findings.push_back(Finding{.code = "clock.throttled",
                                   .severity = Severity::warn,
                                   .gpu = 0,
                                   .detail = "throttled during 1 of 3 samples",
                                   .mig_device = "MIG-7e1d"});
  return slice;
}

RunRecord full_record() {
  RunRecord r;
  r.tool = {"0.1.0", "0123456789abcdef0123456789abcdef01234567"};
  r.run_id = "run-20261130T120000Z-node-a";
  r.started_at = "2026-11-30T12:00:00Z";
  r.ended_at = "2026-11-30T12:03:10Z";
  r.complete = true;
  r.argv = {"gpuqual", "run", "--suite", "canary", "--baseline", "auto"};
  r.suite = "canary";
  r.node.hostname = "node-a";
  r.node.kernel = "6.1.0-28-amd64";
  r.node.arch = "x86_64";
  r.node.os = "Debian GNU/Linux 12 (bookworm)";
  r.node.cpu_model = "Intel(R) Xeon(R) Platinum 8480+";
  r.node.numa_nodes = 2;
  r.node.driver_version = "570.133.20";
  r.node.cuda_driver_version = "12.8";
  r.node.cuda_runtime_version = "13.0";
  r.node.cublas_version = "13.0.0";
  r.node.nccl_version = "2.28.3";
  r.node.container_runtimes = {"docker 28.2.2", "podman 4.3.1"};
  r.node.k8s_node_name = "gpu-node-a";
  r.node.k8s_labels = {{"nvidia.com/gpu.product", "NVIDIA-H200"}, {"nvidia.com/gpu.count", "2"}};
  r.node.pci_gpus = std::vector<PciGpu>{{"0000:10:00.0", "0x2335", "0x030200", "nvidia"},
                                        {"0000:11:00.0", "0x2335", "0x030200", "nvidia"}};
  r.node.kernel_module_version = "570.133.20";
  r.node.nvml_driver_version = "570.133.20";
  r.node.nvml_cuda_driver_version = "12.8";
  r.node.libcuda_version = "570.133.20";
  r.node.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  r.node.uptime_s = 86400.5;
  r.node.visible_devices = "NVIDIA_VISIBLE_DEVICES=all";
  r.hardware_class = {"h200-sxm-141gb", 2, "NVIDIA-H200", 143771, false};
  r.gpus = {full_gpu(0), full_gpu(1)};
  // What NVML failed to give (docs/inventory.md, "GPUs NVML cannot read").
  r.gpus[1].nvml_unread = {"pci_bus_id: NVML_ERROR_UNKNOWN: Unknown Error"};
  r.node.nvml_devices_unread = {"NVML GPU 2: handle: NVML_ERROR_GPU_IS_LOST: GPU is lost"};
  // MIG (docs/mig.md): GPU 0 with a GPU instance of two compute instances, GPU 1 unread.
  const std::vector<MigComputeInstance> cis{{0, "1c.3g.71gb", "MIG-7e1d", 16},
                                            {1, "2c.3g.71gb", "MIG-7e2d", 32}};
  r.gpus[0].mig = MigState{true, true, {MigGpuInstance{1, "3g.71gb", 0, 4, 71680ull << 20, cis}}, ""};
  r.gpus[1].mig = MigState{true, false, {}, "nvmlDeviceGetMaxMigDeviceCount: NVML_ERROR_UNKNOWN"};
  r.node.stack = full_stack();

  CheckResult gemm;
  gemm.name = "gemm";
  gemm.status = Status::warn;
  gemm.reason = "GPU 1 throttled during 1 of 3 samples";
  gemm.started_at = "2026-11-30T12:00:01Z";
  gemm.duration_s = 12.5;
  gemm.per_gpu = {{0, Status::pass, "", ""}, {1, Status::warn, "throttled", ""}};
  gemm.metrics.push_back(
      summarize_metric("gemm.bf16.tflops", "TFLOP/s", Direction::higher, 0, {770, 772, 771}));
  gemm.metrics.push_back(
      summarize_metric("gemm.bf16.tflops", "TFLOP/s", Direction::higher, 1, {760, 770, 771}, 1));
  gemm.attributes = {{"m", "8192"}, {"dtype", "bf16"}};
  r.checks.push_back(gemm);

  CheckResult health;
  health.name = "health";
  health.status = Status::fail;
  health.reason = "uncorrected ECC errors on GPU 1";
  health.started_at = "2026-11-30T12:00:20Z";
  health.duration_s = 0.4;
  health.per_gpu = {{0, Status::pass, "", ""}, {1, Status::fail, "ecc.uncorrected_volatile", ""}};
  health.findings.push_back(Finding{
      .code = "ecc.uncorrected_volatile",
      .severity = Severity::fail,
      .gpu = 1,
      .detail = "2 uncorrected volatile ECC errors",
      .action = "drain the node and reset GPU 1",
      .value = 2,
  });
  health.metrics.push_back(summarize_metric("health.temperature", "celsius", Direction::lower, 0, {41}));
  r.checks.push_back(health);

  r.checks.push_back(slice_result());

  // A not-applicable skip (reason_code) of a check the suite marks optional.
  CheckResult fp8;
  fp8.name = "gemm_fp8";
  fp8.status = Status::skip;
  fp8.reason = "gpu 0: no requested precision runs on this GPU";
  fp8.reason_code = "precision_unsupported";
  fp8.optional = true;
  fp8.started_at = "2026-11-30T12:00:21Z";
  fp8.per_gpu = {{0, Status::skip, "no requested precision runs on this GPU", "precision_unsupported"}};
  r.checks.push_back(fp8);
  return r;
}

// Every optional field unset: node-scope metric and finding, no GPU facts beyond the required.
RunRecord minimal_record() {
  RunRecord r;
  r.tool = {"0.1.0", ""};
  r.run_id = "run-minimal";
  r.started_at = "2026-11-30T12:00:00Z";
  r.complete = false;
  r.hardware_class = {"unknown", 0, "", std::nullopt, false};
  CheckResult c;
  c.name = "gemm";
  c.status = Status::skip;
  c.reason = "no GPU: CUDA driver version is insufficient for CUDA runtime version";
  c.metrics.push_back(summarize_metric("run.duration", "s", Direction::lower, std::nullopt, {}));
  c.findings.push_back(Finding{.code = "inventory.no_gpu", .severity = Severity::info});
  r.checks.push_back(c);
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "write" && argc == 3) {
    const std::string dir = argv[2];
    write_record(dir + "/full.json", full_record());
    write_record(dir + "/minimal.json", minimal_record());
    return 0;
  }
  if (mode == "units" && argc == 2) {
    for (std::string_view u : known_units()) std::printf("%.*s\n", static_cast<int>(u.size()), u.data());
    return 0;
  }
  if (mode == "read" && argc >= 3) {
    int rc = 0;
    for (int i = 2; i < argc; ++i) {
      try {
        read_record(argv[i]);
        std::printf("ok\n");
      } catch (const InputError& e) {
        std::printf("error: %s\n", e.what());
        rc = 3;
      }
      // Anything else escapes: the reader may only ever throw InputError, so a crash here
      // fails the schema test loudly.
    }
    return rc;
  }
  std::fprintf(stderr, "usage: gpuqual_record_sample write DIR | read FILE... | units\n");
  return 3;
}
