#include "core/verdict/gpu_partition_skips.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "core/rules/gpu_sharing.hpp"
#include "core/rules/mig_mode.hpp"

namespace gpuqual {

bool is_gpu_partition_code(std::string_view code) {
  return code == "mig_instance" || code == "mig_disabled" || code == "no_gpu_sharing" || code == "vgpu_guest";
}

std::optional<std::string> gpu_partition_refusal(const RunRecord& r, std::string_view code) {
  const auto any = [&](auto pred) { return std::any_of(r.gpus.begin(), r.gpus.end(), pred); };
  if (code == "mig_instance" && !any([](const GpuInfo& g) { return g.mig && g.mig->current; })) {
    return std::string("mig_instance, but no GPU of the record is in MIG mode");
  }
  if (code == "mig_disabled" && !no_gpu_uses_mig(r.gpus)) {
    return std::string(
        "mig_disabled, but the record has a GPU in MIG mode (now or pending) or one whose MIG "
        "mode NVML did not read");
  }
  if (code == "no_gpu_sharing" && sharing_in_play(r.node.k8s_labels, std::nullopt)) {
    return fmt::format("no_gpu_sharing, but the Node's labels share the GPUs ({}, {})", kReplicasLabel,
                       kSharingStrategyLabel);
  }
  if (code == "vgpu_guest" && !any([](const GpuInfo& g) { return g.virtualization_mode == "vgpu"; })) {
    return std::string("vgpu_guest, but no GPU of the record is a vGPU");
  }
  return std::nullopt;
}

}  // namespace gpuqual
