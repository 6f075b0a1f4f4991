#pragma once
// The GPUs NVML sees, and the per-GPU facts the inventory takes from NVML. NVML numbers GPUs in
// PCI order while CUDA's order may differ (CUDA_DEVICE_ORDER, CUDA_VISIBLE_DEVICES), so GPUs
// are matched across the two by UUID, never by index.
#include <nvml.h>

#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

class NvmlSession;
struct NvmlApi;

struct NvmlDeviceRef {
  unsigned nvml_index = 0;
  nvmlDevice_t handle = nullptr;
  std::string uuid;        // "GPU-..."
  std::string pci_bus_id;  // "00000000:19:00.0"
};

// Every device NVML can open; devices NVML lists but cannot open are skipped (their error goes
// to `problems` when given).
std::vector<NvmlDeviceRef> list_nvml_devices(const NvmlSession& nvml,
                                             std::vector<std::string>* problems = nullptr);

// Finds the NVML device with this UUID (case-insensitive), else with this PCI bus id.
const NvmlDeviceRef* match_nvml_device(const std::vector<NvmlDeviceRef>& devices, const std::string& uuid,
                                       const std::string& pci_bus_id);

// Fills from NVML what CUDA cannot tell: ECC/MIG/persistence modes, PCIe max gen/width, power
// limit, VBIOS, NVLink count; and name/UUID/bus id/CC/memory where `gpu` lacks them. A reading
// NVML does not support stays empty (std::nullopt), which is the truth, not a default.
// The current clock of `type` (NVML_CLOCK_SM, NVML_CLOCK_MEM) in MHz; nullopt when the driver
// lacks nvmlDeviceGetClockInfo or the reading fails.
std::optional<double> read_clock_mhz(const NvmlApi& api, nvmlDevice_t device, nvmlClockType_t type);

// The GPU's temperature in degrees C through nvmlDeviceGetTemperatureV, the NVML 13 spelling,
// else the deprecated nvmlDeviceGetTemperature (older drivers only have that one); nullopt when
// neither reads.
std::optional<int> read_gpu_temperature_c(const NvmlApi& api, nvmlDevice_t device);

// The record's spelling of an nvmlGpuVirtualizationMode_t ("none", "passthrough", "vgpu",
// "host_vgpu", "host_vsga"); "" for a value this build does not know.
std::string virtualization_mode_name(int mode);

void fill_gpu_from_nvml(const NvmlSession& nvml, const NvmlDeviceRef& device, GpuInfo& gpu);

}  // namespace gpuqual
