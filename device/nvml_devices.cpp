#include "device/nvml_devices.hpp"

#include "core/base/text_case.hpp"
#include "core/record/gpu_match.hpp"  // normalize_pci_bus_id: CUDA and NVML write the domain differently
#include "device/nvml_library.hpp"
#include "device/nvml_mig.hpp"

namespace gpuqual {

std::string virtualization_mode_name(int mode) {
  switch (mode) {
    case NVML_GPU_VIRTUALIZATION_MODE_NONE:
      return "none";
    case NVML_GPU_VIRTUALIZATION_MODE_PASSTHROUGH:
      return "passthrough";
    case NVML_GPU_VIRTUALIZATION_MODE_VGPU:
      return "vgpu";
    case NVML_GPU_VIRTUALIZATION_MODE_HOST_VGPU:
      return "host_vgpu";
    case NVML_GPU_VIRTUALIZATION_MODE_HOST_VSGA:
      return "host_vsga";
  }
  return "";  // a mode newer than this nvml.h: not read rather than guessed
}

std::vector<NvmlDeviceRef> list_nvml_devices(const NvmlSession& nvml, std::vector<std::string>* problems) {
  std::vector<NvmlDeviceRef> out;
  if (!nvml.ok()) return out;
  const NvmlApi& api = nvml.api();
  unsigned count = 0;
  nvmlReturn_t rc = api.nvmlDeviceGetCount_v2(&count);
  if (rc != NVML_SUCCESS) {
    if (problems) problems->push_back("nvmlDeviceGetCount_v2: " + nvml.error_text(rc));
    return out;
  }
  for (unsigned i = 0; i < count; ++i) {
    NvmlDeviceRef ref;
    ref.nvml_index = i;
    rc = api.nvmlDeviceGetHandleByIndex_v2(i, &ref.handle);
    if (rc != NVML_SUCCESS) {
      // A GPU that fell off the bus shows up here (NVML_ERROR_GPU_IS_LOST): keep the reason.
      if (problems) problems->push_back("NVML GPU " + std::to_string(i) + ": " + nvml.error_text(rc));
      continue;
    }
    if (api.nvmlDeviceGetUUID) {
      char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
      if (api.nvmlDeviceGetUUID(ref.handle, buf, sizeof buf) == NVML_SUCCESS) ref.uuid = buf;
    }
    if (api.nvmlDeviceGetPciInfo_v3) {
      nvmlPciInfo_t pci{};
      if (api.nvmlDeviceGetPciInfo_v3(ref.handle, &pci) == NVML_SUCCESS) ref.pci_bus_id = pci.busId;
    }
    out.push_back(std::move(ref));
  }
  return out;
}

const NvmlDeviceRef* match_nvml_device(const std::vector<NvmlDeviceRef>& devices, const std::string& uuid,
                                       const std::string& pci_bus_id) {
  if (!uuid.empty()) {
    for (const auto& d : devices) {
      if (!d.uuid.empty() && to_lower(d.uuid) == to_lower(uuid)) return &d;
    }
  }
  if (!pci_bus_id.empty()) {
    const std::string want = normalize_pci_bus_id(pci_bus_id);
    for (const auto& d : devices) {
      if (!d.pci_bus_id.empty() && normalize_pci_bus_id(d.pci_bus_id) == want) return &d;
    }
  }
  return nullptr;
}

namespace {

// What names the card: its name, UUID, bus id, compute capability and memory size (CUDA's
// readings, when the inventory has them, are kept).
void fill_identity(const NvmlSession& nvml, const NvmlDeviceRef& device, GpuInfo& gpu) {
  const NvmlApi& api = nvml.api();
  nvmlDevice_t h = device.handle;
  if (gpu.name.empty() && api.nvmlDeviceGetName) {
    char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (api.nvmlDeviceGetName(h, buf, sizeof buf) == NVML_SUCCESS) gpu.name = buf;
  }
  if (gpu.uuid.empty()) gpu.uuid = device.uuid;
  // NVML's bus id (8-digit domain) is the form nvidia-smi and the record use.
  if (!device.pci_bus_id.empty()) gpu.pci_bus_id = device.pci_bus_id;
  if (gpu.compute_capability.empty() && api.nvmlDeviceGetCudaComputeCapability) {
    int major = 0, minor = 0;
    if (api.nvmlDeviceGetCudaComputeCapability(h, &major, &minor) == NVML_SUCCESS) {
      gpu.compute_capability = std::to_string(major) + "." + std::to_string(minor);
    }
  }
  if (gpu.memory_bytes == 0 && api.nvmlDeviceGetMemoryInfo) {
    nvmlMemory_t mem{};
    if (api.nvmlDeviceGetMemoryInfo(h, &mem) == NVML_SUCCESS) gpu.memory_bytes = mem.total;
  }
}

// The modes the card runs in: ECC, MIG, virtualization, persistence.
void fill_modes(const NvmlApi& api, nvmlDevice_t h, GpuInfo& gpu) {
  if (api.nvmlDeviceGetEccMode) {
    nvmlEnableState_t current{}, pending{};
    if (api.nvmlDeviceGetEccMode(h, &current, &pending) == NVML_SUCCESS) {
      gpu.ecc_enabled = current == NVML_FEATURE_ENABLED;
    }
  }
  if (api.nvmlDeviceGetMigMode) {
    unsigned current = 0, pending = 0;
    if (api.nvmlDeviceGetMigMode(h, &current, &pending) == NVML_SUCCESS) {
      gpu.mig_enabled = current == NVML_DEVICE_MIG_ENABLE;
    }
  }
  if (api.nvmlDeviceGetVirtualizationMode) {
    nvmlGpuVirtualizationMode_t mode{};
    if (api.nvmlDeviceGetVirtualizationMode(h, &mode) == NVML_SUCCESS) {
      gpu.virtualization_mode = virtualization_mode_name(mode);
    }
  }
  if (api.nvmlDeviceGetPersistenceMode) {
    nvmlEnableState_t mode{};
    if (api.nvmlDeviceGetPersistenceMode(h, &mode) == NVML_SUCCESS) {
      gpu.persistence_enabled = mode == NVML_FEATURE_ENABLED;
    }
  }
}

// The card's PCIe link maximum and its enforced power limit.
void fill_limits(const NvmlApi& api, nvmlDevice_t h, GpuInfo& gpu) {
  // The GPU's own maximum, not the slot's: a Gen5 card in a Gen4 slot is a fact about the slot
  // that the health check reports (link below max), so the inventory records the card.
  unsigned value = 0;
  if (api.nvmlDeviceGetGpuMaxPcieLinkGeneration &&
      api.nvmlDeviceGetGpuMaxPcieLinkGeneration(h, &value) == NVML_SUCCESS) {
    gpu.pcie_max_gen = static_cast<int>(value);
  } else if (api.nvmlDeviceGetMaxPcieLinkGeneration &&
             api.nvmlDeviceGetMaxPcieLinkGeneration(h, &value) == NVML_SUCCESS) {
    gpu.pcie_max_gen = static_cast<int>(value);
  }
  if (api.nvmlDeviceGetMaxPcieLinkWidth && api.nvmlDeviceGetMaxPcieLinkWidth(h, &value) == NVML_SUCCESS) {
    gpu.pcie_max_width = static_cast<int>(value);
  }
  if (api.nvmlDeviceGetEnforcedPowerLimit && api.nvmlDeviceGetEnforcedPowerLimit(h, &value) == NVML_SUCCESS) {
    gpu.power_limit_w = value / 1000.0;  // NVML reports milliwatts
  }
}

// Active links: an inactive link on a board that has it is a health finding, and the count
// of active links is what a baseline of the class can expect (18 on H100/H200 SXM).
// NVML answers NOT_SUPPORTED on boards without NVLink, so the count stays empty there.
std::optional<int> active_nvlink_count(const NvmlApi& api, nvmlDevice_t h) {
  if (!api.nvmlDeviceGetNvLinkState) return std::nullopt;
  int active_links = 0;
  bool any = false;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active{};
    if (api.nvmlDeviceGetNvLinkState(h, link, &active) != NVML_SUCCESS) continue;
    any = true;
    if (active == NVML_FEATURE_ENABLED) ++active_links;
  }
  if (!any) return std::nullopt;
  return active_links;
}

}  // namespace

void fill_gpu_from_nvml(const NvmlSession& nvml, const NvmlDeviceRef& device, GpuInfo& gpu) {
  const NvmlApi& api = nvml.api();
  nvmlDevice_t h = device.handle;
  fill_identity(nvml, device, gpu);
  fill_modes(api, h, gpu);
  fill_limits(api, h, gpu);
  if (api.nvmlDeviceGetVbiosVersion) {
    char buf[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE] = {};
    if (api.nvmlDeviceGetVbiosVersion(h, buf, sizeof buf) == NVML_SUCCESS) gpu.vbios = buf;
  }
  if (const std::optional<int> links = active_nvlink_count(api, h)) gpu.nvlink_count = *links;
  gpu.mig = read_mig_state(api, h);
}

std::optional<double> read_clock_mhz(const NvmlApi& api, nvmlDevice_t device, nvmlClockType_t type) {
  unsigned mhz = 0;
  if (api.nvmlDeviceGetClockInfo && api.nvmlDeviceGetClockInfo(device, type, &mhz) == NVML_SUCCESS) {
    return static_cast<double>(mhz);
  }
  return std::nullopt;
}

std::optional<int> read_gpu_temperature_c(const NvmlApi& api, nvmlDevice_t device) {
  if (api.nvmlDeviceGetTemperatureV) {
    nvmlTemperature_t t{};
    t.version = nvmlTemperature_v1;
    t.sensorType = NVML_TEMPERATURE_GPU;
    if (api.nvmlDeviceGetTemperatureV(device, &t) == NVML_SUCCESS) return t.temperature;
  }
  unsigned v = 0;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
  if (api.nvmlDeviceGetTemperature &&
      api.nvmlDeviceGetTemperature(device, NVML_TEMPERATURE_GPU, &v) == NVML_SUCCESS) {
    return static_cast<int>(v);
  }
#pragma GCC diagnostic pop
  return std::nullopt;
}

}  // namespace gpuqual
