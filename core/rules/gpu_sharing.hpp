#pragma once
// Time-slicing and MPS (docs/mig.md, "Time-slicing and MPS"): the device plugin advertises each
// GPU `replicas` times. The sharing config (its config file's `sharing.timeSlicing` or
// `sharing.mps` resources, NVIDIA k8s-device-plugin, "Shared Access to GPUs") and the labels GPU
// Feature Discovery derives from it (`nvidia.com/gpu.replicas`, `nvidia.com/gpu.sharing-strategy`)
// must agree with each other and with the Node's capacity: replicas x GPUs. The physical GPU is
// measured once by the other checks, never once per replica.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kReplicasLabel = "nvidia.com/gpu.replicas";
inline constexpr const char* kSharingStrategyLabel = "nvidia.com/gpu.sharing-strategy";

struct SharingConfig {
  std::string strategy;       // "time-slicing", "mps" or "none" (no sharing section)
  std::string resource;       // the shared resource: nvidia.com/gpu, or nvidia.com/gpu.shared when renamed
  std::int64_t replicas = 1;  // of nvidia.com/gpu
};

// The device plugin's config file (`version: v1`, `sharing: {timeSlicing|mps: {renameByDefault,
// resources: [{name: nvidia.com/gpu, replicas: 4}]}}`), or a ConfigMap holding it. InputError
// naming the file and line for anything else.
SharingConfig parse_device_plugin_sharing(const std::string& text, const std::string& origin);

// Labels or a config say the GPUs are shared (replicas above 1, or a strategy other than none).
bool sharing_in_play(const std::map<std::string, std::string>& labels,
                     const std::optional<SharingConfig>& config);

struct SharingInputs {
  int physical_gpus = 0;  // whole GPUs (MIG devices are judged by the `mig` check)
  std::map<std::string, std::string> labels;
  std::optional<SharingConfig> config;
  std::optional<std::map<std::string, std::int64_t>> capacity;  // nvidia.com/* of the Node
};

struct SharingResult {
  std::vector<Finding> findings;
  int compared = 0;
};

SharingResult judge_gpu_sharing(const SharingInputs& in);

}  // namespace gpuqual
