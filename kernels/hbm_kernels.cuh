#pragma once
// Thin launchers for the HBM bandwidth kernels (copy, scale, add, triad, read, write) and their
// verifier. Element counts are in doubles and must be even: the kernels move 16-byte double2
// vectors, several independent loads per thread before the stores (kernels/hbm_tiling.cuh),
// then a grid-stride tail. Pointers come from cudaMalloc (256-byte aligned). Each returns
// the launch status (cudaGetLastError).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/hbm_ops.cuh"

namespace gpuqual::kernels {

struct LaunchShape {
  unsigned blocks = 1;
  unsigned threads = 256;
};

// Blocks per SM the bandwidth kernel `k` reaches at `threads` per block (occupancy API).
cudaError_t stream_blocks_per_sm(StreamKernel k, unsigned threads, int* blocks_per_sm);

// dst[i] = stream_init_value(seed, array, i).
cudaError_t launch_stream_init(double* dst, std::uint64_t n, std::uint64_t seed, std::uint32_t array,
                               LaunchShape shape, cudaStream_t stream);

// Runs kernel `k`: d from a (and b). `read` writes shape.blocks partial sums of a to `partials`
// (which must hold shape.blocks doubles) and touches no d.
cudaError_t launch_stream_kernel(StreamKernel k, const double* a, const double* b, double* d,
                                 double* partials, std::uint64_t n, StreamScalars sc, LaunchShape shape,
                                 cudaStream_t stream);

// The exact expected sum of array a = stream_init_value(seed, 0, i) over i < n, computed from
// the generator (not from memory) into shape.blocks partials.
cudaError_t launch_stream_expected_sum(std::uint64_t seed, std::uint64_t n, double* partials,
                                       LaunchShape shape, cudaStream_t stream);

// Checks every element: a and b against the generator, d against stream_expected_output (for
// every kernel but `read`). counters[0] += mismatches, counters[1] = min(counters[1], first bad
// index); the caller zeroes counters[0] and sets counters[1] to UINT64_MAX first.
cudaError_t launch_stream_verify(StreamKernel k, const double* a, const double* b, const double* d,
                                 std::uint64_t n, std::uint64_t seed, StreamScalars sc,
                                 unsigned long long* counters, LaunchShape shape, cudaStream_t stream);

// out[j] = src[indices[j]] (doubles), for the host's sampled replay.
cudaError_t launch_gather_f64(const double* src, const std::uint64_t* indices, std::uint32_t count,
                              double* out, cudaStream_t stream);

}  // namespace gpuqual::kernels
