#pragma once
// Thin launchers that fill one rank's all-reduce buffer with its pattern contribution and check
// a reduced buffer against the expected sums (nccl_pattern.cuh). Return the launch status.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/nccl_pattern.cuh"

namespace gpuqual::kernels {

// data[i] = allreduce_contribution(pattern, rank, i) as float or bf16, for i < count.
cudaError_t launch_allreduce_fill(void* data, ReduceType type, std::uint64_t count, AllreducePattern pattern,
                                  int rank, cudaStream_t stream);

// counters[0] += number of i with data[i] != allreduce_expected(pattern, i); counters[1] = min of
// such i. The caller zeroes counters[0] and sets counters[1] to UINT64_MAX first.
cudaError_t launch_allreduce_verify(const void* data, ReduceType type, std::uint64_t count,
                                    AllreducePattern pattern, unsigned long long* counters,
                                    cudaStream_t stream);

}  // namespace gpuqual::kernels
