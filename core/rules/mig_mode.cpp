#include "core/rules/mig_mode.hpp"

#include <fmt/format.h>

namespace gpuqual {

std::vector<Finding> mig_mode_findings(const std::vector<GpuInfo>& gpus) {
  std::vector<Finding> out;
  for (const GpuInfo& g : gpus) {
    if (!g.mig || !g.mig->change_pending()) continue;
    auto mode = [](bool on) { return on ? "enabled" : "disabled"; };
    out.push_back(Finding{
        .code = kMigChangePending,
        .severity = Severity::fail,
        .gpu = g.index,
        .detail =
            fmt::format("GPU {} ({}): MIG change not applied: reboot or GPU reset pending (MIG {} now, {} "
                        "after the reset)",
                        g.index, g.uuid, mode(g.mig->current), mode(g.mig->pending)),
        .action = "drain the node, reset the GPU (nvidia-smi -r -i <index>) or reboot, then qualify it again",
    });
  }
  return out;
}

bool mig_in_play(const GpuInfo& gpu) { return gpu.mig && (gpu.mig->current || gpu.mig->pending); }

bool no_gpu_uses_mig(const std::vector<GpuInfo>& gpus) {
  if (gpus.empty()) return false;
  for (const GpuInfo& g : gpus) {
    if (mig_in_play(g)) return false;
    if (!g.mig && !g.persistence_enabled && !g.ecc_enabled) return false;  // NVML never answered for it
  }
  return true;
}

}  // namespace gpuqual
