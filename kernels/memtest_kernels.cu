#include "kernels/memtest_kernels.cuh"

namespace gpuqual::kernels {
namespace {

__device__ void log_error(MemtestErrorLog* log, std::uint64_t index, std::uint64_t expected,
                          std::uint64_t observed, std::uint32_t step) {
  const unsigned long long slot = atomicAdd(&log->count, 1ULL);
  if (slot < kMemtestLogCapacity) log->entries[slot] = MemtestErrorEntry{index, expected, observed, step, 0};
}

// Grid-stride over the chunk; `volatile` keeps the read from being folded into the write.
__global__ void memtest_step_kernel(std::uint64_t* words, std::uint64_t n, std::uint64_t base,
                                    MemtestPattern p, std::uint64_t seed, std::uint32_t pass,
                                    std::uint32_t step, MemtestErrorLog* log) {
  const std::uint32_t steps = memtest_steps(p);
  volatile std::uint64_t* w = words;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    if (step > 0) {
      const std::uint64_t expected = memtest_value(p, seed, pass, step - 1, base + i);
      const std::uint64_t observed = w[i];
      if (memtest_word_bad(expected, observed)) log_error(log, base + i, expected, observed, step - 1);
    }
    if (step < steps) w[i] = memtest_value(p, seed, pass, step, base + i);
  }
}

}  // namespace

cudaError_t launch_memtest_step(std::uint64_t* words, std::uint64_t n, std::uint64_t base, MemtestPattern p,
                                std::uint64_t seed, std::uint32_t pass, std::uint32_t step,
                                MemtestErrorLog* log, unsigned blocks, unsigned threads,
                                cudaStream_t stream) {
  memtest_step_kernel<<<blocks, threads, 0, stream>>>(words, n, base, p, seed, pass, step, log);
  return cudaGetLastError();
}

}  // namespace gpuqual::kernels
