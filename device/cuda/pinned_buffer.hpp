#pragma once
// PinnedBuffer: move-only owner of page-locked host memory (cudaHostAlloc), the only kind of
// host memory that PCIe copies reach at full speed and that cudaMemcpyAsync overlaps with.
#include "device/cuda/cuda_allocation.hpp"

namespace gpuqual {

struct PinnedHostMemory {
  // cudaHostAllocPortable: visible to every device's context (all GPUs copy from one buffer).
  static constexpr unsigned kDefaultFlags = cudaHostAllocPortable;
  static void* allocate(std::size_t bytes, unsigned flags) {
    void* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(&p, bytes, flags));
    return p;
  }
  static void free(void* p) noexcept { (void)cudaFreeHost(p); }
};

using PinnedBuffer = CudaAllocation<PinnedHostMemory>;

}  // namespace gpuqual
