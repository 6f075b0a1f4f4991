#pragma once
// A MIG mode change that was asked for and not applied (docs/mig.md, "Pending mode"): NVML's
// pending MIG mode differs from the current one until the GPU is reset or the node rebooted,
// and until then the GPU runs in the old mode. The MIG manager can report success for such a
// node (NVIDIA/mig-parted #18), so the record's own inventory decides it, whatever the labels.
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

inline constexpr const char* kMigChangePending = "mig.change_pending";

// One `fail` finding per GPU whose pending MIG mode differs from its current one:
// "GPU 0 (GPU-...): MIG change not applied: reboot or GPU reset pending (MIG disabled now,
// enabled after the reset)".
std::vector<Finding> mig_mode_findings(const std::vector<GpuInfo>& gpus);

// Whether MIG concerns this GPU: in MIG mode now or after the pending reset.
bool mig_in_play(const GpuInfo& gpu);

// The node's GPUs are all known not to use MIG: each answered nvmlDeviceGetMigMode with both
// modes disabled, or answered NVML's other readings but not that one (a card without MIG:
// NVML_ERROR_NOT_SUPPORTED). A GPU NVML did not read at all is not known, and no GPU is not
// "no MIG" (the `mig` check's not-applicable `mig_disabled`; core/verdict/skip_acceptance.cpp).
bool no_gpu_uses_mig(const std::vector<GpuInfo>& gpus);

}  // namespace gpuqual
