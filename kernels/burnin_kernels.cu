#include "kernels/burnin_hash.cuh"
#include "kernels/burnin_kernels.cuh"

namespace gpuqual::kernels {
namespace {

constexpr unsigned kThreads = 256;

__global__ void burnin_hash_kernel(const std::uint64_t* __restrict__ data, std::uint64_t words,
                                   unsigned long long* out) {
  std::uint64_t sum = 0;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < words;
       i += stride) {
    sum += burnin_word_term(i, data[i]);
  }
  // Wrapping 64-bit addition is associative and commutative: any order, same bits.
  for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffU, sum, off);
  if ((threadIdx.x & 31U) == 0) atomicAdd(out, static_cast<unsigned long long>(sum));
}

}  // namespace

cudaError_t launch_burnin_hash(const std::uint64_t* data, std::uint64_t words, unsigned long long* out,
                               unsigned blocks, cudaStream_t stream) {
  burnin_hash_kernel<<<blocks, kThreads, 0, stream>>>(data, words, out);
  return cudaGetLastError();
}

}  // namespace gpuqual::kernels
