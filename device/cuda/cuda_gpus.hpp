#pragma once
// The GPUs the CUDA runtime can use, with what only CUDA knows (SM count, its device order).
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct CudaGpuScan {
  std::vector<GpuInfo> gpus;  // index = CUDA device ordinal (what checks pass to cudaSetDevice)
  std::string error;          // the runtime's message when it cannot enumerate; "" otherwise
};

// Never throws: a missing or too-old driver is a fact ("cudaGetDeviceCount: cudaErrorInsufficientDriver:
// ...").
CudaGpuScan scan_cuda_gpus();

// cudaUUID_t bytes as NVML prints them: "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx".
std::string format_gpu_uuid(const unsigned char (&bytes)[16]);

}  // namespace gpuqual
