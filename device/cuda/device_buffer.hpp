#pragma once
// DeviceBuffer: move-only owner of one cudaMalloc allocation.
#include "device/cuda/cuda_allocation.hpp"

namespace gpuqual {

struct DeviceMemory {
  static constexpr unsigned kDefaultFlags = 0;  // cudaMalloc takes none
  static void* allocate(std::size_t bytes, unsigned /*flags*/) {
    void* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void free(void* p) noexcept { (void)cudaFree(p); }
};

using DeviceBuffer = CudaAllocation<DeviceMemory>;

}  // namespace gpuqual
