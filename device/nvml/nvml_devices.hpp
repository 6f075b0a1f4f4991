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
  nvmlDevice_t handle = nullptr;  // null: NVML listed the device but could not open it
  std::string uuid;               // "GPU-..."
  std::string pci_bus_id;         // "00000000:19:00.0"
  // "<reading>: <NVML's answer>" for the handle, UUID or bus id NVML did not give
  // ("handle: NVML_ERROR_GPU_IS_LOST: GPU is lost"): the inventory's GpuInfo::nvml_unread.
  std::vector<std::string> unread;

  bool opened() const { return handle != nullptr; }
  // A UUID or a bus id to tie the device to the inventory's GPUs by.
  bool identified() const { return !uuid.empty() || !pci_bus_id.empty(); }
};

// Every device NVML lists (nvmlDeviceGetCount_v2), opened or not: a device is never dropped
// for a handle, UUID or bus id NVML failed to give; `unread` says what failed. The count's own
// failure goes to `count_error` (when given) and yields no device.
std::vector<NvmlDeviceRef> scan_nvml_devices(const NvmlSession& nvml, std::string* count_error = nullptr);

// The devices of scan_nvml_devices that NVML could open, for readers that need a handle;
// a device not opened is named in `problems` (when given) with NVML's answer, as is a count
// that failed.
std::vector<NvmlDeviceRef> list_nvml_devices(const NvmlSession& nvml,
                                             std::vector<std::string>* problems = nullptr);

// "NVML GPU <index>: <what failed>; ..." for a device the inventory cannot tie to a GPU.
std::string nvml_device_problem(const NvmlDeviceRef& device);

// For a GPU NVML lists under no UUID or bus id: NVML's answer for a handle at its bus id
// (nvmlDeviceGetHandleByPciBusId_v2) when that fails, "handle: <answer>" (NVML_ERROR_GPU_IS_LOST
// for a GPU CUDA still lists but NVML lost); "" when NVML gives a handle or cannot be asked.
std::string nvml_handle_answer(const NvmlSession& nvml, const std::string& bus_id);

// Removes from `untied` one device not opened whose handle answer is `answer`: the GPU that
// answered it by bus id accounts for it, so it is not listed twice.
void account_for_unopened(std::vector<NvmlDeviceRef>& untied, const std::string& answer);

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

// Also sets gpu.nvml_unread: the device's own `unread`, and the first reading NVML answered
// NVML_ERROR_GPU_IS_LOST (after which nothing more is asked of a lost GPU).
void fill_gpu_from_nvml(const NvmlSession& nvml, const NvmlDeviceRef& device, GpuInfo& gpu);

}  // namespace gpuqual
