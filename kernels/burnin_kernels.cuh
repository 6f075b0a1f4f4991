#pragma once
// Launcher for the burn-in's output fingerprint (burnin_hash.cuh) of `words` 64-bit words.
// `out` (device) receives += the sum; the caller zeroes it. Returns the launch status.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpuqual::kernels {

cudaError_t launch_burnin_hash(const std::uint64_t* data, std::uint64_t words, unsigned long long* out,
                               unsigned blocks, cudaStream_t stream);

}  // namespace gpuqual::kernels
