#include "kernels/copy_pattern_kernels.cuh"

namespace gpuqual::kernels {
namespace {

constexpr unsigned kThreads = 256;

unsigned blocks_for(std::uint64_t count) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(wanted == 0 ? 1 : (wanted < 65536 ? wanted : 65536));
}

__global__ void fill_kernel(std::uint64_t* words, std::uint64_t count, std::uint64_t seed) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride)
    words[i] = copy_pattern_word(seed, i);
}

__global__ void verify_kernel(const std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                              unsigned long long* counters) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  unsigned long long bad = 0, first = ~0ULL;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    if (words[i] != copy_pattern_word(seed, i)) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

}  // namespace

cudaError_t launch_pattern_fill(std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                cudaStream_t stream) {
  fill_kernel<<<blocks_for(count), kThreads, 0, stream>>>(words, count, seed);
  return cudaGetLastError();
}

cudaError_t launch_pattern_verify(const std::uint64_t* words, std::uint64_t count, std::uint64_t seed,
                                  unsigned long long* counters, cudaStream_t stream) {
  verify_kernel<<<blocks_for(count), kThreads, 0, stream>>>(words, count, seed, counters);
  return cudaGetLastError();
}

}  // namespace gpuqual::kernels
