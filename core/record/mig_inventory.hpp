#pragma once
// A GPU's MIG state as the record carries it (docs/mig.md, "Inventory"): the MIG mode NVML
// reports now and the one the next GPU reset or reboot applies (nvmlDeviceGetMigMode's
// current and pending), and the GPU instances with their compute instances. Each compute
// instance is one MIG device: what `CUDA_VISIBLE_DEVICES=MIG-<uuid>` gives a process and what
// the device plugin advertises as one `nvidia.com/mig-<profile>` (NVIDIA MIG user guide,
// "MIG Device Names" and "Supported MIG Profiles").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gpuqual {

struct MigComputeInstance {
  unsigned id = 0;      // nvmlDeviceGetComputeInstanceId: unique within its GPU instance
  std::string profile;  // "1g.10gb" when it spans its GPU instance, else "1c.2g.20gb"
  std::string uuid;     // "MIG-..." (nvmlDeviceGetUUID of the MIG device handle)
  int sm_count = 0;     // nvmlDeviceGetAttributes_v2: multiprocessorCount
};

struct MigGpuInstance {
  unsigned id = 0;                 // nvmlDeviceGetGpuInstanceId: unique within the GPU
  std::string profile;             // the GPU instance profile: "1g.10gb" (NVML's "MIG 1g.10gb")
  unsigned placement_start = 0;    // nvmlGpuInstancePlacement_t: the first memory slice occupied
  unsigned placement_size = 0;     // and the number of memory slices
  std::uint64_t memory_bytes = 0;  // nvmlDeviceGetMemoryInfo of its MIG device: total
  std::vector<MigComputeInstance> compute_instances;
};

struct MigState {
  bool current = false;  // NVML_DEVICE_MIG_ENABLE now
  bool pending = false;  // NVML_DEVICE_MIG_ENABLE after the next GPU reset or reboot
  std::vector<MigGpuInstance> gpu_instances;
  // Why the instances of a GPU in MIG mode could not be listed ("" when they were): a driver
  // without the MIG calls, or a call that failed. Never "no instances": that is an empty list.
  std::string unread;

  // A MIG mode change requested but not yet applied (nvidia-smi -mig 1 without the reset).
  bool change_pending() const { return current != pending; }
};

// The number of MIG devices (compute instances) of each profile: what the device plugin
// advertises in the mixed strategy and what the MIG manager's config asks for.
std::vector<std::pair<std::string, int>> mig_device_counts(const MigState& mig);

// One MIG device of a GPU: its compute instance and the GPU instance that holds it (whose
// profile names the device's class, core/record/mig_class.hpp).
struct MigDeviceRef {
  const MigGpuInstance* gpu_instance = nullptr;
  const MigComputeInstance* compute_instance = nullptr;
};
// The MIG device whose UUID is `uuid` ("MIG-..."), or nullopt.
std::optional<MigDeviceRef> find_mig_device(const MigState& mig, std::string_view uuid);

// Where a MIG device sits on its GPU, "1g.18gb@3/ci0": its GPU instance's profile and first
// memory slice, and its compute instance's id. A MIG UUID is new each time the MIG manager
// re-creates the instances (an upgrade, a reboot), the place is not: diff matches slices by it.
// `uuid` itself when the GPU does not list it.
std::string mig_slice_place(const MigState& mig, std::string_view uuid);

}  // namespace gpuqual
