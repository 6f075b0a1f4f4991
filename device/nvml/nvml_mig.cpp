#include "device/nvml/nvml_mig.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "device/nvml/nvml_error.hpp"
#include "device/nvml/nvml_library.hpp"

namespace gpuqual {

std::string mig_profile_from_nvml_name(const char* name) {
  std::string s = name ? name : "";
  if (s.rfind("MIG ", 0) == 0) s.erase(0, 4);
  return s;
}

std::string mig_compute_profile(const std::string& gpu_instance_profile, unsigned ci_slices,
                                unsigned gi_slices) {
  if (ci_slices == 0 || ci_slices >= gi_slices) return gpu_instance_profile;
  return std::to_string(ci_slices) + "c." + gpu_instance_profile;
}

namespace {

// The profile name of the GPU instance profile whose id NVML gave the instance: NVML numbers
// profiles per device, so the profile enum (NVML_GPU_INSTANCE_PROFILE_*) is searched for it.
std::string gpu_instance_profile_name(const NvmlApi& api, nvmlDevice_t parent, unsigned profile_id) {
  if (!api.nvmlDeviceGetGpuInstanceProfileInfoV) return {};
  for (unsigned p = 0; p < NVML_GPU_INSTANCE_PROFILE_COUNT; ++p) {
    nvmlGpuInstanceProfileInfo_v2_t info{};
    info.version = nvmlGpuInstanceProfileInfo_v2;
    if (api.nvmlDeviceGetGpuInstanceProfileInfoV(parent, p, &info) != NVML_SUCCESS) continue;
    if (info.id == profile_id) return mig_profile_from_nvml_name(info.name);
  }
  return {};
}

// The GPU instance `id` of `parent`, read once: its profile and placement.
std::string read_gpu_instance(const NvmlApi& api, nvmlDevice_t parent, unsigned id, MigGpuInstance& gi) {
  nvmlGpuInstance_t handle{};
  nvmlReturn_t rc = api.nvmlDeviceGetGpuInstanceById(parent, id, &handle);
  if (rc != NVML_SUCCESS)
    return "nvmlDeviceGetGpuInstanceById(" + std::to_string(id) + "): " + nvml_error_text(rc);
  nvmlGpuInstanceInfo_t info{};
  rc = api.nvmlGpuInstanceGetInfo(handle, &info);
  if (rc != NVML_SUCCESS) return "nvmlGpuInstanceGetInfo: " + nvml_error_text(rc);
  gi.id = id;
  gi.placement_start = info.placement.start;
  gi.placement_size = info.placement.size;
  gi.profile = gpu_instance_profile_name(api, parent, info.profileId);
  if (gi.profile.empty())
    return "GPU instance " + std::to_string(id) + ": no profile has id " + std::to_string(info.profileId);
  return {};
}

struct MigDeviceFacts {
  unsigned gi_id = 0;
  unsigned ci_id = 0;
  MigComputeInstance ci;
  std::uint64_t memory_bytes = 0;
  unsigned gi_slices = 0;
  unsigned ci_slices = 0;
};

std::string read_mig_device(const NvmlApi& api, nvmlDevice_t mig, MigDeviceFacts& f) {
  nvmlReturn_t rc = api.nvmlDeviceGetGpuInstanceId(mig, &f.gi_id);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetGpuInstanceId: " + nvml_error_text(rc);
  rc = api.nvmlDeviceGetComputeInstanceId(mig, &f.ci_id);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetComputeInstanceId: " + nvml_error_text(rc);
  f.ci.id = f.ci_id;
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = {};
  rc = api.nvmlDeviceGetUUID(mig, uuid, sizeof uuid);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetUUID (MIG device): " + nvml_error_text(rc);
  f.ci.uuid = uuid;
  nvmlDeviceAttributes_t attrs{};
  rc = api.nvmlDeviceGetAttributes_v2(mig, &attrs);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetAttributes_v2 (MIG device): " + nvml_error_text(rc);
  f.ci.sm_count = static_cast<int>(attrs.multiprocessorCount);
  f.gi_slices = attrs.gpuInstanceSliceCount;
  f.ci_slices = attrs.computeInstanceSliceCount;
  f.memory_bytes = attrs.memorySizeMB << 20;
  nvmlMemory_t mem{};
  if (api.nvmlDeviceGetMemoryInfo && api.nvmlDeviceGetMemoryInfo(mig, &mem) == NVML_SUCCESS) {
    f.memory_bytes = mem.total;
  }
  return {};
}

// Adds one MIG device to its GPU instance (read the first time one of its devices is seen).
std::string add_mig_device(const NvmlApi& api, nvmlDevice_t parent, const MigDeviceFacts& f, MigState& mig) {
  auto it = std::find_if(mig.gpu_instances.begin(), mig.gpu_instances.end(),
                         [&](const MigGpuInstance& gi) { return gi.id == f.gi_id; });
  if (it == mig.gpu_instances.end()) {
    MigGpuInstance gi;
    if (std::string why = read_gpu_instance(api, parent, f.gi_id, gi); !why.empty()) return why;
    gi.memory_bytes = f.memory_bytes;
    mig.gpu_instances.push_back(std::move(gi));
    it = mig.gpu_instances.end() - 1;
  }
  MigComputeInstance ci = f.ci;
  ci.profile = mig_compute_profile(it->profile, f.ci_slices, f.gi_slices);
  it->compute_instances.push_back(std::move(ci));
  return {};
}

bool has_mig_listing(const NvmlApi& api) {
  return api.nvmlDeviceGetMaxMigDeviceCount && api.nvmlDeviceGetMigDeviceHandleByIndex &&
         api.nvmlDeviceGetGpuInstanceId && api.nvmlDeviceGetComputeInstanceId &&
         api.nvmlDeviceGetAttributes_v2 && api.nvmlDeviceGetGpuInstanceById && api.nvmlGpuInstanceGetInfo &&
         api.nvmlDeviceGetUUID;
}

// Every MIG device of `parent`, by index; a slot without a device (NVML_ERROR_NOT_FOUND) is
// an instance not created, not an error.
std::string list_mig_devices(const NvmlApi& api, nvmlDevice_t parent, MigState& mig) {
  if (!has_mig_listing(api)) return "the NVML library lacks the MIG device calls (driver older than R450)";
  unsigned max_count = 0;
  nvmlReturn_t rc = api.nvmlDeviceGetMaxMigDeviceCount(parent, &max_count);
  if (rc != NVML_SUCCESS) return "nvmlDeviceGetMaxMigDeviceCount: " + nvml_error_text(rc);
  for (unsigned i = 0; i < max_count; ++i) {
    nvmlDevice_t handle{};
    rc = api.nvmlDeviceGetMigDeviceHandleByIndex(parent, i, &handle);
    if (rc == NVML_ERROR_NOT_FOUND) continue;
    if (rc != NVML_SUCCESS)
      return "nvmlDeviceGetMigDeviceHandleByIndex(" + std::to_string(i) + "): " + nvml_error_text(rc);
    MigDeviceFacts facts;
    if (std::string why = read_mig_device(api, handle, facts); !why.empty()) return why;
    if (std::string why = add_mig_device(api, parent, facts, mig); !why.empty()) return why;
  }
  std::sort(
      mig.gpu_instances.begin(), mig.gpu_instances.end(),
      [](const MigGpuInstance& a, const MigGpuInstance& b) { return a.placement_start < b.placement_start; });
  return {};
}

}  // namespace

std::optional<MigState> read_mig_state(const NvmlApi& api, nvmlDevice_t device) {
  if (!api.nvmlDeviceGetMigMode) return std::nullopt;
  unsigned current = 0, pending = 0;
  if (api.nvmlDeviceGetMigMode(device, &current, &pending) != NVML_SUCCESS) return std::nullopt;
  MigState mig;
  mig.current = current == NVML_DEVICE_MIG_ENABLE;
  mig.pending = pending == NVML_DEVICE_MIG_ENABLE;
  if (!mig.current) return mig;
  mig.unread = list_mig_devices(api, device, mig);
  if (!mig.unread.empty()) mig.gpu_instances.clear();  // a partial list would read as missing instances
  return mig;
}

}  // namespace gpuqual
