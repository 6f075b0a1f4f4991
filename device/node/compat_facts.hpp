#pragma once
// What the compatibility preflight needs to know about this node: the host driver (NVML, else
// /proc/driver/nvidia/version), the CUDA version the driver supports (cudaDriverGetVersion),
// the CUDA runtime gpuqual carries, and each GPU as NVIDIA_REQUIRE_* sees it (brand named the
// way libnvidia-container names it, compute capability).
#include <string>
#include <vector>

#include "core/compat/cuda_compat.hpp"
#include "core/compat/cuda_compat_require.hpp"

namespace gpuqual {

struct CompatFacts {
  HostDriver host;
  std::optional<DottedVersion> runtime;  // cudaRuntimeGetVersion
  std::vector<RequireFacts> gpus;        // empty when NVML sees none
  std::string nvml_note;                 // why GPUs could not be listed, if so
};

CompatFacts collect_compat_facts();

// libnvidia-container's src/driver.c names only these NVML brands; every other brand
// (NVIDIA, NVIDIA RTX, the vGPU brands) is "Unknown" — hence brand=unknown in the images.
std::string libnvidia_container_brand(int nvml_brand);

}  // namespace gpuqual
