#pragma once
// Reads a HealthSnapshot (core/rules/health_snapshot.hpp) from NVML: counters, modes and limits once,
// and the fast-changing readings (clock event reasons, temperature, current PCIe link) on each
// sample() call, accumulated (union of reasons, hottest temperature, highest link seen).
// A reading NVML does not give is left empty and named in `unread` with NVML's message.
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/rules/health_snapshot.hpp"
#include "device/nvml/nvml_devices.hpp"

namespace gpuqual {

class NvmlSession;

class NvmlHealthReader {
 public:
  // `record_gpus`: the inventory's GPUs; NVML devices are matched to them by UUID so findings
  // carry run-record GPU indices, and identified devices outside them (CUDA_VISIBLE_DEVICES)
  // are left out (counted in nvml_gpu_count only). With no record GPUs (CUDA unusable), every
  // NVML device is read under its NVML index, as the inventory then lists them. A device NVML
  // lists but that cannot be tied to a GPU (not opened, neither UUID nor bus id read) is never
  // dropped: HealthSnapshot::unidentified names it with NVML's answers.
  NvmlHealthReader(const NvmlSession& nvml, const std::vector<GpuInfo>& record_gpus);

  // A snapshot with every static reading (counters, modes, limits, NVLink), no samples yet.
  // nvml_available=false (with the reason) when the session is not usable.
  HealthSnapshot read() const;
  // Adds one sample of the fast-changing readings to `snapshot` (same GPU order as read()).
  void sample(HealthSnapshot& snapshot) const;

  // Run-record index of an NVML device handle (for Xid events); -1 when unknown.
  int record_index_of(nvmlDevice_t device) const;
  const std::vector<NvmlDeviceRef>& devices() const { return devices_; }

 private:
  const NvmlSession& nvml_;
  std::vector<NvmlDeviceRef> devices_;
  std::vector<int> record_index_;  // parallel to devices_
  std::vector<std::string> problems_;
  std::vector<std::string> unidentified_;  // HealthSnapshot::unidentified
  struct Unopened {                        // a run GPU NVML answered no handle for, by bus id
    int index = 0;
    std::string name, uuid, pci_bus_id, answer;
  };
  std::vector<Unopened> unopened_;
  int nvml_count_ = 0;  // every device NVML lists, opened or not
};

}  // namespace gpuqual
