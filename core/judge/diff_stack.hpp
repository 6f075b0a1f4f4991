#pragma once
// What changed in the software and firmware stack between two records of one node, listed
// before any metric in a diff: an upgrade is judged knowing what was upgraded.
#include <string>
#include <vector>

#include "core/record/gpu_match.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

// One line per change, in this order: driver, CUDA driver, CUDA runtime, cuBLAS, NCCL, kernel,
// OS, each container runtime, then per GPU (matched by UUID) VBIOS, ECC mode, MIG mode, power
// limit, InfoROM and GSP firmware, then every other stack component by its stack_components name
// ("bios.version: 2.17.0 → 2.19.1", "platform.gpu-operator: v25.3.0 → v25.10.0", probe images),
// then the hardware class and the gpuqual version. "driver: 550.90.07 → 570.133.20"; a value
// that is missing on one side reads "(none)", one that could not be read "(unread: <reason>)".
std::vector<std::string> stack_changes(const RunRecord& before, const RunRecord& after,
                                       const GpuMatching& gpus);

}  // namespace gpuqual
