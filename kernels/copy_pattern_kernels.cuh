#pragma once
// Thin launchers that fill a device buffer with the copy pattern and check one against it.
// Return the launch status (cudaGetLastError).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/copy_pattern.cuh"

namespace gpuqual::kernels {

// words[i] = copy_pattern_word(seed, i) for i < count.
cudaError_t launch_pattern_fill(std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                cudaStream_t stream);

// counters[0] += number of i with words[i] != copy_pattern_word(seed, i); counters[1] = min of
// such i. The caller zeroes counters[0] and sets counters[1] to UINT64_MAX first.
cudaError_t launch_pattern_verify(const std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                  unsigned long long* counters, cudaStream_t stream);

}  // namespace gpuqual::kernels
