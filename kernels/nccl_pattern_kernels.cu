#include "kernels/nccl_pattern_kernels.cuh"

namespace gpuqual::kernels {
namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted == 0 ? 1 : (wanted < 65536 ? wanted : 65536));
}

__device__ std::uint64_t first_index() {
  return blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
}
__device__ std::uint64_t grid_stride() { return static_cast<std::uint64_t>(gridDim.x) * blockDim.x; }

__global__ void fill_f32(float* data, std::uint64_t count, AllreducePattern p, int rank) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride())
    data[i] = static_cast<float>(allreduce_contribution(p, rank, i));
}

__global__ void fill_bf16(std::uint16_t* data, std::uint64_t count, AllreducePattern p, int rank) {
  for (std::uint64_t i = first_index(); i < count; i += grid_stride())
    data[i] = bf16_bits_of_exact(static_cast<float>(allreduce_contribution(p, rank, i)));
}

template <class Load>
__device__ void verify_range(Load load, std::uint64_t count, const AllreducePattern& p,
                             unsigned long long* counters) {
  unsigned long long bad = 0, first = ~0ULL;
  for (std::uint64_t i = first_index(); i < count; i += grid_stride()) {
    if (!allreduce_element_ok(load(i), allreduce_expected(p, i))) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

__global__ void verify_f32(const float* data, std::uint64_t count, AllreducePattern p,
                           unsigned long long* counters) {
  verify_range([data](std::uint64_t i) { return data[i]; }, count, p, counters);
}

__global__ void verify_bf16(const std::uint16_t* data, std::uint64_t count, AllreducePattern p,
                            unsigned long long* counters) {
  verify_range([data](std::uint64_t i) { return float_of_bf16_bits(data[i]); }, count, p, counters);
}

}  // namespace

cudaError_t launch_allreduce_fill(void* data, ReduceType type, std::uint64_t count, AllreducePattern pattern,
                                  int rank, cudaStream_t stream) {
  if (type == ReduceType::f32) {
    fill_f32<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<float*>(data), count, pattern, rank);
  } else {
    fill_bf16<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<std::uint16_t*>(data), count, pattern,
                                                          rank);
  }
  return cudaGetLastError();
}

cudaError_t launch_allreduce_verify(const void* data, ReduceType type, std::uint64_t count,
                                    AllreducePattern pattern, unsigned long long* counters,
                                    cudaStream_t stream) {
  if (type == ReduceType::f32) {
    verify_f32<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const float*>(data), count, pattern,
                                                           counters);
  } else {
    verify_bf16<<<blocks_for(count), kThreads, 0, stream>>>(static_cast<const std::uint16_t*>(data), count,
                                                            pattern, counters);
  }
  return cudaGetLastError();
}

}  // namespace gpuqual::kernels
