#include "kernels/hbm_kernels.cuh"

#include "kernels/hbm_tiling.cuh"

namespace gpuqual::kernels {
namespace {

__device__ __forceinline__ std::uint64_t first_index() {
  return blockIdx.x * static_cast<std::uint64_t>(blockDim.x) + threadIdx.x;
}
__device__ __forceinline__ std::uint64_t grid_stride() {
  return static_cast<std::uint64_t>(gridDim.x) * blockDim.x;
}

// One element pair of kernel K: d from a (and b) at vector v.
template <StreamKernel K>
__device__ __forceinline__ double2 stream_op(double2 x, double2 y, std::uint64_t v, StreamScalars sc) {
  if constexpr (K == StreamKernel::copy) {
    return x;
  } else if constexpr (K == StreamKernel::scale) {
    return make_double2(stream_scale(x.x, sc.s), stream_scale(x.y, sc.s));
  } else if constexpr (K == StreamKernel::add) {
    return make_double2(stream_add(x.x, y.x), stream_add(x.y, y.y));
  } else if constexpr (K == StreamKernel::triad) {
    return make_double2(stream_triad(x.x, y.x, sc.s), stream_triad(x.y, y.y, sc.s));
  } else {  // write
    return make_double2(stream_write_value(2 * v, sc.w0, sc.w1), stream_write_value(2 * v + 1, sc.w0, sc.w1));
  }
}

template <StreamKernel K>
constexpr bool kReadsA = K != StreamKernel::write;
template <StreamKernel K>
constexpr bool kReadsB = K == StreamKernel::add || K == StreamKernel::triad;

// The bandwidth kernels on 16-byte double2 vectors: per tile, kStreamUnroll independent loads
// of each input before any store (kernels/hbm_tiling.cuh says why and which vectors), then a
// grid-stride tail.
template <StreamKernel K>
__global__ void stream_kernel(const double* __restrict__ a, const double* __restrict__ b,
                              double* __restrict__ d, std::uint64_t n, StreamScalars sc) {
  const auto* a2 = reinterpret_cast<const double2*>(a);
  const auto* b2 = reinterpret_cast<const double2*>(b);
  auto* d2 = reinterpret_cast<double2*>(d);
  const std::uint64_t nv = n / 2, tid = first_index(), threads = grid_stride();
  const std::uint64_t tiles = stream_full_tiles(nv, threads, kStreamUnroll);
  for (std::uint64_t t = 0; t < tiles; ++t) {
    double2 x[kStreamUnroll], y[kStreamUnroll];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::uint64_t v = stream_tile_index(t, u, tid, threads, kStreamUnroll);
      if constexpr (kReadsA<K>) x[u] = a2[v];
      if constexpr (kReadsB<K>) y[u] = b2[v];
    }
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) {
      const std::uint64_t v = stream_tile_index(t, u, tid, threads, kStreamUnroll);
      d2[v] = stream_op<K>(x[u], y[u], v, sc);
    }
  }
  for (std::uint64_t v = stream_tail_start(nv, threads, kStreamUnroll) + tid; v < nv; v += threads) {
    double2 x{}, y{};
    if constexpr (kReadsA<K>) x = a2[v];
    if constexpr (kReadsB<K>) y = b2[v];
    d2[v] = stream_op<K>(x, y, v, sc);
  }
}

constexpr unsigned kMaxThreads = 1024;

// Block-wide sum into partials[blockIdx.x]; blockDim.x is a power of two <= kMaxThreads.
__device__ void block_sum_to(double value, double* partials) {
  __shared__ double shared[kMaxThreads];
  shared[threadIdx.x] = value;
  __syncthreads();
  for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) shared[threadIdx.x] += shared[threadIdx.x + half];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

// Read-only bandwidth: sum of a, kStreamUnroll independent loads per tile into as many
// accumulators (one dependent add chain per load would serialise them). Exact whatever the
// order (see hbm_ops.cuh), so the sum still has one right answer.
__global__ void read_kernel(const double* __restrict__ a, std::uint64_t n, double* partials) {
  const auto* a2 = reinterpret_cast<const double2*>(a);
  const std::uint64_t nv = n / 2, tid = first_index(), threads = grid_stride();
  const std::uint64_t tiles = stream_full_tiles(nv, threads, kStreamUnroll);
  double sums[kStreamUnroll] = {};
  for (std::uint64_t t = 0; t < tiles; ++t) {
    double2 x[kStreamUnroll];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u)
      x[u] = a2[stream_tile_index(t, u, tid, threads, kStreamUnroll)];
#pragma unroll
    for (unsigned u = 0; u < kStreamUnroll; ++u) sums[u] += x[u].x + x[u].y;
  }
  for (std::uint64_t v = stream_tail_start(nv, threads, kStreamUnroll) + tid; v < nv; v += threads) {
    const double2 x = a2[v];
    sums[0] += x.x + x.y;
  }
  double sum = 0;
#pragma unroll
  for (unsigned u = 0; u < kStreamUnroll; ++u) sum += sums[u];
  block_sum_to(sum, partials);
}

__global__ void expected_sum_kernel(std::uint64_t seed, std::uint64_t n, double* partials) {
  double sum = 0;
  for (std::uint64_t i = first_index(); i < n; i += grid_stride()) sum += stream_init_value(seed, 0, i);
  block_sum_to(sum, partials);
}

__global__ void init_kernel(double* dst, std::uint64_t n, std::uint64_t seed, std::uint32_t array) {
  for (std::uint64_t i = first_index(); i < n; i += grid_stride()) dst[i] = stream_init_value(seed, array, i);
}

__global__ void verify_kernel(StreamKernel k, const double* a, const double* b, const double* d,
                              std::uint64_t n, std::uint64_t seed, StreamScalars sc,
                              unsigned long long* counters) {
  unsigned long long bad = 0, first = ~0ULL;
  for (std::uint64_t i = first_index(); i < n; i += grid_stride()) {
    const double ea = stream_init_value(seed, 0, i);
    const double eb = stream_init_value(seed, 1, i);
    bool wrong = a[i] != ea || b[i] != eb;
    bool has_output = false;
    const double ed = stream_expected_output(k, ea, eb, i, sc, &has_output);
    if (has_output && d[i] != ed) wrong = true;
    if (wrong) {
      ++bad;
      if (i < first) first = i;
    }
  }
  if (bad) {
    atomicAdd(&counters[0], bad);
    atomicMin(&counters[1], first);
  }
}

__global__ void gather_f64_kernel(const double* src, const std::uint64_t* indices, std::uint32_t count,
                                  double* out) {
  const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j < count) out[j] = src[indices[j]];
}

bool valid(LaunchShape shape) {
  return shape.blocks > 0 && shape.threads > 0 && shape.threads <= kMaxThreads &&
         (shape.threads & (shape.threads - 1)) == 0;
}

template <class Kernel>
cudaError_t blocks_for(Kernel kernel, unsigned threads, int* blocks_per_sm) {
  return cudaOccupancyMaxActiveBlocksPerMultiprocessor(blocks_per_sm, kernel, static_cast<int>(threads), 0);
}

}  // namespace

cudaError_t stream_blocks_per_sm(StreamKernel k, unsigned threads, int* blocks_per_sm) {
  switch (k) {
    case StreamKernel::copy:
      return blocks_for(stream_kernel<StreamKernel::copy>, threads, blocks_per_sm);
    case StreamKernel::scale:
      return blocks_for(stream_kernel<StreamKernel::scale>, threads, blocks_per_sm);
    case StreamKernel::add:
      return blocks_for(stream_kernel<StreamKernel::add>, threads, blocks_per_sm);
    case StreamKernel::triad:
      return blocks_for(stream_kernel<StreamKernel::triad>, threads, blocks_per_sm);
    case StreamKernel::write:
      return blocks_for(stream_kernel<StreamKernel::write>, threads, blocks_per_sm);
    case StreamKernel::read:
      return blocks_for(read_kernel, threads, blocks_per_sm);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_stream_init(double* dst, std::uint64_t n, std::uint64_t seed, std::uint32_t array,
                               LaunchShape shape, cudaStream_t stream) {
  if (!valid(shape)) return cudaErrorInvalidConfiguration;
  init_kernel<<<shape.blocks, shape.threads, 0, stream>>>(dst, n, seed, array);
  return cudaGetLastError();
}

cudaError_t launch_stream_kernel(StreamKernel k, const double* a, const double* b, double* d,
                                 double* partials, std::uint64_t n, StreamScalars sc, LaunchShape shape,
                                 cudaStream_t stream) {
  if (!valid(shape) || n % 2 != 0) return cudaErrorInvalidValue;
  const unsigned g = shape.blocks, t = shape.threads;
  switch (k) {
    case StreamKernel::copy:
      stream_kernel<StreamKernel::copy><<<g, t, 0, stream>>>(a, b, d, n, sc);
      break;
    case StreamKernel::scale:
      stream_kernel<StreamKernel::scale><<<g, t, 0, stream>>>(a, b, d, n, sc);
      break;
    case StreamKernel::add:
      stream_kernel<StreamKernel::add><<<g, t, 0, stream>>>(a, b, d, n, sc);
      break;
    case StreamKernel::triad:
      stream_kernel<StreamKernel::triad><<<g, t, 0, stream>>>(a, b, d, n, sc);
      break;
    case StreamKernel::write:
      stream_kernel<StreamKernel::write><<<g, t, 0, stream>>>(a, b, d, n, sc);
      break;
    case StreamKernel::read:
      read_kernel<<<g, t, 0, stream>>>(a, n, partials);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

cudaError_t launch_stream_expected_sum(std::uint64_t seed, std::uint64_t n, double* partials,
                                       LaunchShape shape, cudaStream_t stream) {
  if (!valid(shape)) return cudaErrorInvalidConfiguration;
  expected_sum_kernel<<<shape.blocks, shape.threads, 0, stream>>>(seed, n, partials);
  return cudaGetLastError();
}

cudaError_t launch_stream_verify(StreamKernel k, const double* a, const double* b, const double* d,
                                 std::uint64_t n, std::uint64_t seed, StreamScalars sc,
                                 unsigned long long* counters, LaunchShape shape, cudaStream_t stream) {
  if (!valid(shape)) return cudaErrorInvalidConfiguration;
  verify_kernel<<<shape.blocks, shape.threads, 0, stream>>>(k, a, b, d, n, seed, sc, counters);
  return cudaGetLastError();
}

cudaError_t launch_gather_f64(const double* src, const std::uint64_t* indices, std::uint32_t count,
                              double* out, cudaStream_t stream) {
  if (count == 0) return cudaSuccess;
  gather_f64_kernel<<<(count + 255) / 256, 256, 0, stream>>>(src, indices, count, out);
  return cudaGetLastError();
}

}  // namespace gpuqual::kernels
