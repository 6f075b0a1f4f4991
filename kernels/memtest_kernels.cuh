#pragma once
// Launchers for the memtest step kernel. One launch does one step of a pattern over a chunk of
// `n` words whose first word has global index `base`: verify the previous step's value (when
// step > 0) and write this step's value (when step < steps). Bad words go to `log` (device
// memory, zeroed by the caller). Returns the launch status.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/memtest_patterns.cuh"

namespace gpuqual::kernels {

cudaError_t launch_memtest_step(std::uint64_t* words, std::uint64_t n, std::uint64_t base, MemtestPattern p,
                                std::uint64_t seed, std::uint32_t pass, std::uint32_t step,
                                MemtestErrorLog* log, unsigned blocks, unsigned threads, cudaStream_t stream);

}  // namespace gpuqual::kernels
