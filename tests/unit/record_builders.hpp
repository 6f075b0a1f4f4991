#pragma once
// Small builders for records in tests, so each test states only what it varies.
#include <string>
#include <vector>

#include "core/record/metric_summary.hpp"
#include "core/record/record.hpp"

namespace gpuqual::testing {

inline Metric make_metric(std::string name, std::string unit, std::vector<double> samples,
                          std::optional<int> gpu = 0, Direction dir = Direction::higher) {
  return summarize_metric(std::move(name), std::move(unit), dir, gpu, std::move(samples));
}

inline GpuInfo make_gpu(int index, std::string name = "NVIDIA H200",
                        std::uint64_t memory_bytes = 143771ull << 20) {
  GpuInfo g;
  g.index = index;
  g.name = std::move(name);
  g.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(index);
  g.pci_bus_id = "00000000:1" + std::to_string(index) + ":00.0";
  g.compute_capability = "9.0";
  g.sm_count = 132;
  g.memory_bytes = memory_bytes;
  g.ecc_enabled = true;
  g.pcie_max_gen = 5;
  g.pcie_max_width = 16;
  g.power_limit_w = 700;
  g.vbios = "96.00.99.00.01";
  return g;
}

// A stack with every kind of fact: read, null with a reason, NICs of both classes, one GPU's
// firmware per GPU, platform components.
inline StackInventory make_stack(int gpus = 1) {
  StackInventory s;
  s.bios_vendor = StackFact::read("Dell Inc.");
  s.bios_version = StackFact::read("2.19.1");
  s.bios_date = StackFact::read("03/07/2024");
  s.board_vendor = StackFact::read("Dell Inc.");
  s.board_name = StackFact::unread("/sys/class/dmi/id/board_name: Permission denied");
  s.nics = std::vector<NicStack>{
      {"mlx5_0", "infiniband", "0000:3b:00.0", StackFact::read("mlx5_core"), StackFact::read("28.39.1002")},
      {"eno1", "net", "0000:01:00.0", StackFact::read("tg3"),
       StackFact::unread("sysfs has no firmware version for eno1")}};
  for (int i = 0; i < gpus; ++i) {
    GpuFirmware f;
    f.gpu = i;
    f.uuid = "GPU-00000000-0000-0000-0000-00000000000" + std::to_string(i);
    f.inforom_image = StackFact::read("G520.0200.00.05");
    f.inforom_oem = StackFact::read("2.1");
    f.inforom_ecc = StackFact::read("7.16");
    f.inforom_power = StackFact::unread("nvmlDeviceGetInforomVersion(POWER): Not Supported");
    f.gsp_firmware = StackFact::read("570.133.20");
    s.gpu_firmware.push_back(f);
  }
  s.kernel_module_build = StackFact::read(
      "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.133.20  Fri Mar 14 19:28:00 UTC 2025");
  s.fabric_manager = StackFact::read("absent");
  s.nvidia_peermem = StackFact::read("not loaded");
  s.container_toolkit = StackFact::read("1.17.4");
  s.cdi_specs = StackFact::read("nvidia.com/gpu=/etc/cdi/nvidia.yaml");
  s.k8s_kubelet_version = StackFact::read("v1.31.4");
  s.k8s_container_runtime = StackFact::read("containerd://1.7.24");
  s.k8s_kernel_version = StackFact::read("6.1.0");
  s.k8s_os_image = StackFact::read("Ubuntu 22.04.5 LTS");
  s.k8s_gpu_capacity = StackFact::read(std::to_string(gpus));
  s.k8s_gpu_allocatable = StackFact::unread("no node info file given (--node-info-file)");
  s.platform = {{"gpu-operator", "v25.10.0"}, {"dcgm-exporter", "4.2.3-4.1.1"}};
  return s;
}

inline RunRecord make_record(int gpus = 1) {
  RunRecord r;
  r.tool = {"0.1.0", "abc123"};
  r.run_id = "run-test-1";
  r.started_at = "2026-11-30T12:00:00Z";
  r.ended_at = "2026-11-30T12:03:00Z";
  r.complete = true;
  // A suite gpuqual does not ship: a record built here requires no check beyond its baseline's
  // (core/verdict/suite_requirements.hpp); the node's label says how many GPUs it has (expected_gpus.hpp).
  r.argv = {"gpuqual", "run", "--suite", "synthetic"};
  r.suite = "synthetic";
  r.node.hostname = "node-a";
  r.node.kernel = "6.1.0";
  r.node.os = "Debian GNU/Linux 12 (bookworm)";
  r.node.driver_version = "570.133.20";
  r.node.cuda_driver_version = "12.8";
  r.node.cuda_runtime_version = "13.0";
  r.hardware_class.slug = "h200-sxm-141gb";
  r.hardware_class.gpu_count = gpus;
  r.hardware_class.product = "NVIDIA-H200";
  r.hardware_class.memory_mib = 143771;
  for (int i = 0; i < gpus; ++i) r.gpus.push_back(make_gpu(i));
  if (gpus > 0) r.node.k8s_labels["nvidia.com/gpu.count"] = std::to_string(gpus);
  return r;
}

}  // namespace gpuqual::testing
