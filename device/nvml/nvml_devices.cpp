#include "device/nvml/nvml_devices.hpp"

#include <algorithm>

#include "core/base/text_case.hpp"
#include "core/record/gpu_match.hpp"  // normalize_pci_bus_id: CUDA and NVML write the domain differently
#include "device/nvml/nvml_library.hpp"
#include "device/nvml/nvml_mig.hpp"

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

std::vector<NvmlDeviceRef> scan_nvml_devices(const NvmlSession& nvml, std::string* count_error) {
  std::vector<NvmlDeviceRef> out;
  if (!nvml.ok()) return out;
  const NvmlApi& api = nvml.api();
  unsigned count = 0;
  nvmlReturn_t rc = api.nvmlDeviceGetCount_v2(&count);
  if (rc != NVML_SUCCESS) {
    if (count_error) *count_error = "nvmlDeviceGetCount_v2: " + nvml.error_text(rc);
    return out;
  }
  for (unsigned i = 0; i < count; ++i) {
    NvmlDeviceRef& ref = out.emplace_back();
    ref.nvml_index = i;
    rc = api.nvmlDeviceGetHandleByIndex_v2(i, &ref.handle);
    if (rc != NVML_SUCCESS) {
      // A GPU that fell off the bus shows up here (NVML_ERROR_GPU_IS_LOST) while the count
      // still includes it: kept, with NVML's answer.
      ref.handle = nullptr;
      ref.unread.push_back("handle: " + nvml.error_text(rc));
      continue;
    }
    if (api.nvmlDeviceGetUUID) {
      char buf[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
      rc = api.nvmlDeviceGetUUID(ref.handle, buf, sizeof buf);
      if (rc == NVML_SUCCESS)
        ref.uuid = buf;
      else
        ref.unread.push_back("uuid: " + nvml.error_text(rc));
    }
    if (api.nvmlDeviceGetPciInfo_v3) {
      nvmlPciInfo_t pci{};
      rc = api.nvmlDeviceGetPciInfo_v3(ref.handle, &pci);
      if (rc == NVML_SUCCESS)
        ref.pci_bus_id = pci.busId;
      else
        ref.unread.push_back("pci_bus_id: " + nvml.error_text(rc));
    }
  }
  return out;
}

std::vector<NvmlDeviceRef> list_nvml_devices(const NvmlSession& nvml, std::vector<std::string>* problems) {
  std::string count_error;
  std::vector<NvmlDeviceRef> out;
  for (NvmlDeviceRef& d : scan_nvml_devices(nvml, &count_error)) {
    if (d.opened())
      out.push_back(std::move(d));
    else if (problems)
      problems->push_back(nvml_device_problem(d));
  }
  if (problems && !count_error.empty()) problems->push_back(count_error);
  return out;
}

std::string nvml_device_problem(const NvmlDeviceRef& d) {
  std::string what;
  for (const auto& u : d.unread) what += (what.empty() ? "" : "; ") + u;
  if (what.empty()) what = "neither UUID nor PCI bus id read";
  return "NVML GPU " + std::to_string(d.nvml_index) + ": " + what;
}

std::string nvml_handle_answer(const NvmlSession& nvml, const std::string& bus_id) {
  if (!nvml.ok()) return {};
  const NvmlApi& api = nvml.api();
  if (bus_id.empty() || !api.nvmlDeviceGetHandleByPciBusId_v2) return {};
  nvmlDevice_t h = nullptr;
  const nvmlReturn_t rc = api.nvmlDeviceGetHandleByPciBusId_v2(bus_id.c_str(), &h);
  return rc == NVML_SUCCESS ? std::string() : "handle: " + nvml.error_text(rc);
}

void account_for_unopened(std::vector<NvmlDeviceRef>& untied, const std::string& answer) {
  auto it = std::find_if(untied.begin(), untied.end(), [&](const NvmlDeviceRef& d) {
    return !d.opened() && std::find(d.unread.begin(), d.unread.end(), answer) != d.unread.end();
  });
  if (it != untied.end()) untied.erase(it);
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

// NVML's answers to the readings below: a reading NVML does not give stays empty (the truth,
// not a default), except NVML_ERROR_GPU_IS_LOST, which is kept: the GPU has fallen off the bus,
// a fact about the node (docs/inventory.md, "GPUs NVML cannot read"). After it nothing more is
// asked of the GPU.
struct Answers {
  const NvmlSession& nvml;
  std::string lost;  // "<reading>: NVML_ERROR_GPU_IS_LOST: ..." of the first reading lost

  bool ok(nvmlReturn_t rc, const char* what) {
    if (rc == NVML_ERROR_GPU_IS_LOST && lost.empty()) lost = std::string(what) + ": " + nvml.error_text(rc);
    return rc == NVML_SUCCESS;
  }
};

// What names the card: its name, UUID, bus id, compute capability and memory size (CUDA's
// readings, when the inventory has them, are kept).
void fill_identity(const NvmlApi& api, const NvmlDeviceRef& device, GpuInfo& gpu, Answers& a) {
  nvmlDevice_t h = device.handle;
  if (gpu.name.empty() && api.nvmlDeviceGetName) {
    char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = {};
    if (a.ok(api.nvmlDeviceGetName(h, buf, sizeof buf), "name")) gpu.name = buf;
  }
  if (gpu.uuid.empty()) gpu.uuid = device.uuid;
  // NVML's bus id (8-digit domain) is the form nvidia-smi and the record use.
  if (!device.pci_bus_id.empty()) gpu.pci_bus_id = device.pci_bus_id;
  if (gpu.compute_capability.empty() && api.nvmlDeviceGetCudaComputeCapability) {
    int major = 0, minor = 0;
    if (a.ok(api.nvmlDeviceGetCudaComputeCapability(h, &major, &minor), "compute_capability")) {
      gpu.compute_capability = std::to_string(major) + "." + std::to_string(minor);
    }
  }
  if (gpu.memory_bytes == 0 && api.nvmlDeviceGetMemoryInfo) {
    nvmlMemory_t mem{};
    if (a.ok(api.nvmlDeviceGetMemoryInfo(h, &mem), "memory")) gpu.memory_bytes = mem.total;
  }
}

// The modes the card runs in: ECC, MIG, virtualization, persistence.
void fill_modes(const NvmlApi& api, nvmlDevice_t h, GpuInfo& gpu, Answers& a) {
  if (api.nvmlDeviceGetEccMode) {
    nvmlEnableState_t current{}, pending{};
    if (a.ok(api.nvmlDeviceGetEccMode(h, &current, &pending), "ecc_mode")) {
      gpu.ecc_enabled = current == NVML_FEATURE_ENABLED;
    }
  }
  if (api.nvmlDeviceGetMigMode) {
    unsigned current = 0, pending = 0;
    if (a.ok(api.nvmlDeviceGetMigMode(h, &current, &pending), "mig_mode")) {
      gpu.mig_enabled = current == NVML_DEVICE_MIG_ENABLE;
    }
  }
  if (api.nvmlDeviceGetVirtualizationMode) {
    nvmlGpuVirtualizationMode_t mode{};
    if (a.ok(api.nvmlDeviceGetVirtualizationMode(h, &mode), "virtualization_mode")) {
      gpu.virtualization_mode = virtualization_mode_name(mode);
    }
  }
  if (api.nvmlDeviceGetPersistenceMode) {
    nvmlEnableState_t mode{};
    if (a.ok(api.nvmlDeviceGetPersistenceMode(h, &mode), "persistence_mode")) {
      gpu.persistence_enabled = mode == NVML_FEATURE_ENABLED;
    }
  }
}

// The card's PCIe link maximum and its enforced power limit.
void fill_limits(const NvmlApi& api, nvmlDevice_t h, GpuInfo& gpu, Answers& a) {
  // The GPU's own maximum, not the slot's: a Gen5 card in a Gen4 slot is a fact about the slot
  // that the health check reports (link below max), so the inventory records the card.
  unsigned value = 0;
  if (api.nvmlDeviceGetGpuMaxPcieLinkGeneration &&
      a.ok(api.nvmlDeviceGetGpuMaxPcieLinkGeneration(h, &value), "pcie_max_gen")) {
    gpu.pcie_max_gen = static_cast<int>(value);
  } else if (api.nvmlDeviceGetMaxPcieLinkGeneration &&
             a.ok(api.nvmlDeviceGetMaxPcieLinkGeneration(h, &value), "pcie_max_gen")) {
    gpu.pcie_max_gen = static_cast<int>(value);
  }
  if (api.nvmlDeviceGetMaxPcieLinkWidth &&
      a.ok(api.nvmlDeviceGetMaxPcieLinkWidth(h, &value), "pcie_max_width")) {
    gpu.pcie_max_width = static_cast<int>(value);
  }
  if (api.nvmlDeviceGetEnforcedPowerLimit &&
      a.ok(api.nvmlDeviceGetEnforcedPowerLimit(h, &value), "power_limit")) {
    gpu.power_limit_w = value / 1000.0;  // NVML reports milliwatts
  }
  if (api.nvmlDeviceGetVbiosVersion) {
    char buf[NVML_DEVICE_VBIOS_VERSION_BUFFER_SIZE] = {};
    if (a.ok(api.nvmlDeviceGetVbiosVersion(h, buf, sizeof buf), "vbios")) gpu.vbios = buf;
  }
}

// Active links: an inactive link on a board that has it is a health finding, and the count
// of active links is what a baseline of the class can expect (18 on H100/H200 SXM).
// NVML answers NOT_SUPPORTED on boards without NVLink, so the count stays empty there.
std::optional<int> active_nvlink_count(const NvmlApi& api, nvmlDevice_t h, Answers& a) {
  if (!api.nvmlDeviceGetNvLinkState) return std::nullopt;
  int active_links = 0;
  bool any = false;
  for (unsigned link = 0; link < NVML_NVLINK_MAX_LINKS; ++link) {
    nvmlEnableState_t active{};
    if (!a.ok(api.nvmlDeviceGetNvLinkState(h, link, &active), "nvlink_state")) {
      if (!a.lost.empty()) return std::nullopt;
      continue;
    }
    any = true;
    if (active == NVML_FEATURE_ENABLED) ++active_links;
  }
  if (!any) return std::nullopt;
  return active_links;
}

}  // namespace

void fill_gpu_from_nvml(const NvmlSession& nvml, const NvmlDeviceRef& device, GpuInfo& gpu) {
  for (const auto& u : device.unread) {
    if (std::find(gpu.nvml_unread.begin(), gpu.nvml_unread.end(), u) == gpu.nvml_unread.end())
      gpu.nvml_unread.push_back(u);
  }
  if (!device.opened()) return;
  const NvmlApi& api = nvml.api();
  nvmlDevice_t h = device.handle;
  Answers a{nvml, {}};
  fill_identity(api, device, gpu, a);
  if (a.lost.empty()) fill_modes(api, h, gpu, a);
  if (a.lost.empty()) fill_limits(api, h, gpu, a);
  if (a.lost.empty()) {
    if (const std::optional<int> links = active_nvlink_count(api, h, a)) gpu.nvlink_count = *links;
  }
  if (a.lost.empty()) gpu.mig = read_mig_state(api, h);
  if (!a.lost.empty()) gpu.nvml_unread.push_back(a.lost);
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
