#pragma once
// Small builders for records in tests, so each test states only what it varies.
#include <string>
#include <vector>

#include "core/record.hpp"
#include "core/metric_summary.hpp"

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

inline RunRecord make_record(int gpus = 1) {
  RunRecord r;
  r.tool = {"0.1.0", "abc123"};
  r.run_id = "run-test-1";
  r.started_at = "2026-11-30T12:00:00Z";
  r.ended_at = "2026-11-30T12:03:00Z";
  r.complete = true;
  r.argv = {"gpuqual", "run", "--suite", "canary"};
  r.suite = "canary";
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
  return r;
}

}  // namespace gpuqual::testing
