#pragma once
// PCIe copies through the copy engines (cudaMemcpyAsync) between pinned host memory and one
// GPU: host-to-device, device-to-host, and both at once on two streams. The host buffers are
// allocated by a thread bound to the CPUs of the GPU's NUMA node (sysfs), so first-touch places
// them on that node; where sysfs names no node, the default placement is used and recorded.
// Every copy carries the seeded pattern and is checked word for word.
//
// PcieBench holds one GPU's buffers and streams: run() measures that GPU alone (on its own
// thread); run_pcie_all() measures every GPU copying at once from one host thread, the host-side
// limit (root complex, memory bandwidth, NUMA links).
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/event.hpp"
#include "device/cuda/pinned_buffer.hpp"
#include "device/cuda/stream.hpp"
#include "device/measure/measure.hpp"
#include "device/pcie/pcie_plan.hpp"

namespace gpuqual {

struct PcieConfig {
  std::uint64_t bytes = kPcieMinBytes;
  std::uint64_t seed = 1;
  bool numa_placement = true;
  std::string sysfs_root = "/sys";
  MeasureConfig measure;
};

struct CopyResult {
  CopyDirection direction = CopyDirection::h2d;
  MeasureResult measure;
  double bytes_per_op = 0;
  std::uint64_t mismatches = 0;  // words that arrived wrong (all GPUs, for run_pcie_all)
  std::string problem;           // "" when every word arrived intact
  bool ok() const { return mismatches == 0 && problem.empty(); }
};

// Test hook: damages the destination(s) after timing, before verification.
// Arguments: direction, device destination, host destination, words.
using CopyCorruptor = std::function<void(CopyDirection, std::uint64_t* device_dst, std::uint64_t* host_dst,
                                         std::uint64_t words)>;

class PcieBench {
 public:
  // Call on the GPU's own thread, with the GPU current: binds the thread to the GPU's NUMA node
  // (when enabled and known) while allocating and first-touching the pinned buffers, then gives
  // the thread its affinity back (device/host/cpu_affinity.hpp).
  PcieBench(int gpu, const PcieConfig& config);
  int gpu() const { return gpu_; }
  std::optional<int> numa_node() const { return numa_node_; }
  const std::string& placement() const { return placement_; }
  std::uint64_t bytes() const { return words_ * sizeof(std::uint64_t); }

  // Measures this GPU alone. Current device must be gpu().
  CopyResult run(CopyDirection d, const MeasureHooks& hooks, const CopyCorruptor& corrupt = {});

  // Building blocks for run_pcie_all: reset the destinations, enqueue one copy (two for bidir)
  // without waiting, wait, check the destinations. Each sets the current device itself.
  void prepare(CopyDirection d);
  void enqueue(CopyDirection d);
  void wait();
  std::uint64_t verify(CopyDirection d, std::string* problem);

 private:
  int gpu_;
  PcieConfig config_;
  std::uint64_t words_;
  std::optional<int> numa_node_;
  std::string placement_;
  Stream up_, down_;  // H2D on up_, D2H on down_; bidir uses both
  Event fork_{cudaEventDisableTiming}, join_{cudaEventDisableTiming};
  PinnedBuffer host_src_, host_dst_;
  DeviceBuffer dev_src_, dev_dst_;
  DeviceBuffer counters_;
};

// Every bench copying at once; timed on the host clock (no single stream spans the GPUs).
CopyResult run_pcie_all(std::vector<PcieBench*>& benches, CopyDirection d, const MeasureConfig& config,
                        const MeasureHooks& hooks);

}  // namespace gpuqual
