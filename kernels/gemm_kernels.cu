#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "kernels/gemm_kernels.cuh"

namespace gpuqual::kernels {
namespace {

// Conversions are exact: the generator only makes values the storage type represents.
template <class T>
__device__ T to_storage(double v);
template <>
__device__ double to_storage<double>(double v) {
  return v;
}
template <>
__device__ float to_storage<float>(double v) {
  return static_cast<float>(v);
}
template <>
__device__ __half to_storage<__half>(double v) {
  return __float2half_rn(static_cast<float>(v));
}
template <>
__device__ __nv_bfloat16 to_storage<__nv_bfloat16>(double v) {
  return __float2bfloat16_rn(static_cast<float>(v));
}
template <>
__device__ __nv_fp8_e4m3 to_storage<__nv_fp8_e4m3>(double v) {
  return __nv_fp8_e4m3(static_cast<float>(v));
}
template <>
__device__ std::int8_t to_storage<std::int8_t>(double v) {
  return static_cast<std::int8_t>(v);
}

template <class T>
__global__ void fill_kernel(GemmInputKind kind, T* dst, std::uint64_t count, std::uint64_t seed,
                            std::uint32_t matrix) {
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
  for (std::uint64_t i = blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x; i < count;
       i += stride) {
    dst[i] = to_storage<T>(gemm_input_value(kind, seed, matrix, i));
  }
}

template <class T>
__device__ double to_double(T v);
template <>
__device__ double to_double<double>(double v) {
  return v;
}
template <>
__device__ double to_double<float>(float v) {
  return v;
}
template <>
__device__ double to_double<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ double to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}
template <>
__device__ double to_double<std::int32_t>(std::int32_t v) {
  return v;
}

template <class T>
__global__ void gather_kernel(const T* src, const std::uint64_t* indices, std::uint32_t count, double* out) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) out[j] = to_double<T>(src[indices[j]]);
}

constexpr int kThreads = 256;

template <class T>
cudaError_t fill(GemmInputKind kind, void* dst, std::uint64_t count, std::uint64_t seed, std::uint32_t matrix,
                 cudaStream_t stream) {
  const std::uint64_t wanted = (count + kThreads - 1) / kThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 65536 ? (wanted ? wanted : 1) : 65536);
  fill_kernel<T><<<blocks, kThreads, 0, stream>>>(kind, static_cast<T*>(dst), count, seed, matrix);
  return cudaGetLastError();
}

template <class T>
cudaError_t gather(const void* src, const std::uint64_t* indices, std::uint32_t count, double* out,
                   cudaStream_t stream) {
  const unsigned blocks = (count + kThreads - 1) / kThreads;
  if (blocks == 0) return cudaSuccess;
  gather_kernel<T><<<blocks, kThreads, 0, stream>>>(static_cast<const T*>(src), indices, count, out);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_gemm_fill(GemmInputKind kind, void* dst, std::uint64_t count, std::uint64_t seed,
                             std::uint32_t matrix, cudaStream_t stream) {
  switch (kind) {
    case GemmInputKind::f64:
      return fill<double>(kind, dst, count, seed, matrix, stream);
    case GemmInputKind::f32:
    case GemmInputKind::tf32:
      return fill<float>(kind, dst, count, seed, matrix, stream);
    case GemmInputKind::f16:
      return fill<__half>(kind, dst, count, seed, matrix, stream);
    case GemmInputKind::bf16:
      return fill<__nv_bfloat16>(kind, dst, count, seed, matrix, stream);
    case GemmInputKind::e4m3:
      return fill<__nv_fp8_e4m3>(kind, dst, count, seed, matrix, stream);
    case GemmInputKind::i8:
      return fill<std::int8_t>(kind, dst, count, seed, matrix, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_gemm_gather(GemmOutputKind kind, const void* src, const std::uint64_t* indices,
                               std::uint32_t count, double* out, cudaStream_t stream) {
  switch (kind) {
    case GemmOutputKind::f64:
      return gather<double>(src, indices, count, out, stream);
    case GemmOutputKind::f32:
      return gather<float>(src, indices, count, out, stream);
    case GemmOutputKind::f16:
      return gather<__half>(src, indices, count, out, stream);
    case GemmOutputKind::bf16:
      return gather<__nv_bfloat16>(src, indices, count, out, stream);
    case GemmOutputKind::i32:
      return gather<std::int32_t>(src, indices, count, out, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace gpuqual::kernels
