#pragma once
// The NVLink fabric readings of one GPU, read thinly from NVML into GpuHealthReading
// (core/rules/health_snapshot.hpp); core/rules/gpu_fabric.hpp judges them.
//   - nvmlDeviceGetGpuFabricInfoV: registration state, probe status, clique id, cluster UUID and
//     health mask (asked as nvmlGpuFabricInfo_v3, then v2 for a driver that only knows v2);
//   - nvmlDeviceGetFieldValues: NVML_FI_DEV_NVLINK_GET_VERSION / _GET_SPEED per link already
//     listed in `g.nvlinks`, and NVML_FI_DEV_GET_GPU_RECOVERY_ACTION.
// Every one is optional: a driver without the symbol, or a GPU that answers NOT_SUPPORTED,
// leaves the reading empty (fabric_unread says why), never an error.
#include <nvml.h>

#include "core/rules/health_snapshot.hpp"

namespace gpuqual {

class NvmlSession;

void read_gpu_fabric(const NvmlSession& nvml, nvmlDevice_t device, GpuHealthReading& g);

}  // namespace gpuqual
