#pragma once
// Thin launchers for the GEMM check's device work: filling inputs from the seeded generator and
// gathering sampled outputs for the host reference. Each returns the launch status
// (cudaGetLastError); the caller wraps it in CUDA_CHECK.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/gemm_input.cuh"

namespace gpuqual::kernels {

// dst[i] = gemm_input_value(kind, seed, matrix, i) converted (exactly) to the storage type.
cudaError_t launch_gemm_fill(GemmInputKind kind, void* dst, std::uint64_t count, std::uint64_t seed,
                             std::uint32_t matrix, cudaStream_t stream);

// out[j] = (double) src[indices[j]] for j < count; src holds `kind` elements. Device pointers.
cudaError_t launch_gemm_gather(GemmOutputKind kind, const void* src, const std::uint64_t* indices,
                               std::uint32_t count, double* out, cudaStream_t stream);

}  // namespace gpuqual::kernels
