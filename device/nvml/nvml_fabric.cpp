#include "device/nvml/nvml_fabric.hpp"

#include <fmt/format.h>

#include <vector>

#include "device/nvml/nvml_error.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

namespace {

// 16 bytes as a UUID's 8-4-4-4-12 hex groups; "" when every byte is zero (no cluster).
std::string cluster_uuid_text(const unsigned char (&bytes)[NVML_GPU_FABRIC_UUID_LEN]) {
  std::string hex;
  bool any = false;
  for (int i = 0; i < NVML_GPU_FABRIC_UUID_LEN; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) hex += '-';
    hex += fmt::format("{:02x}", bytes[i]);
    any = any || bytes[i] != 0;
  }
  return any ? hex : "";
}

void read_fabric_info(const NvmlSession& nvml, nvmlDevice_t h, GpuHealthReading& g) {
  const NvmlApi& api = nvml.api();
  if (!api.nvmlDeviceGetGpuFabricInfoV) {
    g.fabric_unread = nvml.missing("nvmlDeviceGetGpuFabricInfoV");
    return;
  }
  nvmlGpuFabricInfoV_t info{};
  info.version = nvmlGpuFabricInfo_v3;
  nvmlReturn_t rc = api.nvmlDeviceGetGpuFabricInfoV(h, &info);
  if (rc == NVML_ERROR_ARGUMENT_VERSION_MISMATCH) {
    // A driver that knows v2 only: v2 is v3 without the trailing health summary.
    info = nvmlGpuFabricInfoV_t{};
    info.version = nvmlGpuFabricInfo_v2;
    rc = api.nvmlDeviceGetGpuFabricInfoV(h, &info);
  }
  if (rc != NVML_SUCCESS) {
    g.fabric_unread = "nvmlDeviceGetGpuFabricInfoV: " + nvml.error_text(rc);
    return;
  }
  GpuFabricReading f;
  f.state = info.state;
  f.status = static_cast<int>(info.status);
  f.status_text = nvml_error_text(info.status);
  f.clique_id = info.cliqueId;
  f.cluster_uuid = cluster_uuid_text(info.clusterUuid);
  f.health_mask = info.healthMask;
  g.fabric = f;
}

nvmlFieldValue_t field(unsigned id, unsigned scope) {
  nvmlFieldValue_t v{};
  v.fieldId = id;
  v.scopeId = scope;
  return v;
}

std::optional<std::uint64_t> value_of(const nvmlFieldValue_t& v) {
  if (v.nvmlReturn != NVML_SUCCESS) return std::nullopt;
  switch (v.valueType) {
    case NVML_VALUE_TYPE_UNSIGNED_INT:
      return v.value.uiVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG:
      return v.value.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG:
      return v.value.ullVal;
    case NVML_VALUE_TYPE_SIGNED_INT:
      return v.value.siVal < 0 ? std::nullopt : std::optional<std::uint64_t>(v.value.siVal);
    default:
      return std::nullopt;
  }
}

// Per-link version and speed of the links NVML listed, and the GPU's recovery action, in one
// nvmlDeviceGetFieldValues call (each value carries its own status).
void read_fields(const NvmlApi& api, nvmlDevice_t h, GpuHealthReading& g) {
  if (!api.nvmlDeviceGetFieldValues) return;
  std::vector<nvmlFieldValue_t> values;
  for (const auto& l : g.nvlinks) {
    values.push_back(field(NVML_FI_DEV_NVLINK_GET_VERSION, static_cast<unsigned>(l.link)));
    values.push_back(field(NVML_FI_DEV_NVLINK_GET_SPEED, static_cast<unsigned>(l.link)));
  }
  values.push_back(field(NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, 0));
  if (api.nvmlDeviceGetFieldValues(h, static_cast<int>(values.size()), values.data()) != NVML_SUCCESS) return;
  for (std::size_t i = 0; i < g.nvlinks.size(); ++i) {
    if (auto v = value_of(values[2 * i])) g.nvlinks[i].version = static_cast<int>(*v);
    g.nvlinks[i].speed_mbps = value_of(values[2 * i + 1]);
  }
  if (auto v = value_of(values.back())) g.recovery_action = static_cast<int>(*v);
}

}  // namespace

void read_gpu_fabric(const NvmlSession& nvml, nvmlDevice_t device, GpuHealthReading& g) {
  read_fabric_info(nvml, device, g);
  read_fields(nvml.api(), device, g);
}

}  // namespace gpuqual
