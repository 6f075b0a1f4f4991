#include "device/hbm/hbm_runner.hpp"

#include <cuda_runtime_api.h>

#include <sstream>

#include "device/cuda/device_buffer.hpp"
#include "device/cuda/stream.hpp"
#include "device/measure/measure_timers.hpp"
#include "kernels/hbm_kernels.cuh"

namespace gpuqual {

bool HbmKernelResult::ok() const {
  return device_mismatches == 0 && replay.wrong == 0 && (!sum_checked || sum_got == sum_expected);
}

std::string HbmKernelResult::problem() const {
  std::ostringstream out;
  out.precision(17);
  const auto sep = [&] { return out.tellp() > 0 ? "; " : ""; };
  if (device_mismatches) {
    out << device_mismatches << " elements wrong after " << to_string(kernel) << " (first at index "
        << first_mismatch << ")";
  }
  if (replay.wrong)
    out << sep() << replay.wrong << " of " << replay.checked << " replayed samples wrong ("
        << replay.first_wrong << ")";
  if (sum_checked && sum_got != sum_expected)
    out << sep() << "read sum " << sum_got << " expected " << sum_expected;
  return out.str();
}

namespace {

double sum_partials(const DeviceBuffer& partials, unsigned blocks, cudaStream_t stream) {
  std::vector<double> host(blocks);
  CUDA_CHECK(
      cudaMemcpyAsync(host.data(), partials.get(), blocks * sizeof(double), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  double sum = 0;
  for (double v : host) sum += v;  // exact: see hbm_ops.cuh
  return sum;
}

// The three arrays a STREAM kernel reads and writes, of n doubles each.
struct StreamArrays {
  const DeviceBuffer& a;
  const DeviceBuffer& b;
  const DeviceBuffer& d;
  std::uint64_t n;
};

// Every element, on the GPU, against the generator (not against memory): how many of a, b and d
// are wrong, and the first wrong index.
void count_device_mismatches(HbmKernelResult& r, const StreamArrays& x, std::uint64_t seed,
                             kernels::StreamScalars sc, const DeviceBuffer& counters,
                             const kernels::LaunchShape& shape, cudaStream_t stream) {
  const unsigned long long init[2] = {0, ~0ULL};
  CUDA_CHECK(cudaMemcpyAsync(counters.get(), init, sizeof init, cudaMemcpyHostToDevice, stream));
  CUDA_CHECK(kernels::launch_stream_verify(r.kernel, x.a.as<double>(), x.b.as<double>(), x.d.as<double>(),
                                           x.n, seed, sc, counters.as<unsigned long long>(), shape, stream));
  unsigned long long got[2] = {0, 0};
  CUDA_CHECK(cudaMemcpyAsync(got, counters.get(), sizeof got, cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  r.device_mismatches = got[0];
  r.first_mismatch = got[0] ? got[1] : 0;
}

}  // namespace

HbmRunResult run_hbm(const HbmConfig& config, const MeasureHooks& hooks, const HbmCorruptor& corrupt) {
  int device = 0, sms = 0, l2 = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));

  HbmRunResult run;
  run.l2_bytes = static_cast<std::uint64_t>(l2);
  run.arrays = plan_hbm_arrays(run.l2_bytes, total_bytes, config.array_bytes);
  const std::uint64_t n = run.arrays.elements;

  // One resident wave of blocks: every SM full, each thread striding over the arrays.
  int per_sm = 0;
  CUDA_CHECK(kernels::stream_blocks_per_sm(StreamKernel::triad, config.threads_per_block, &per_sm));
  kernels::LaunchShape shape{static_cast<unsigned>(sms * (per_sm > 0 ? per_sm : 1)),
                             config.threads_per_block};
  run.blocks = shape.blocks;
  run.threads = shape.threads;

  Stream stream;
  DeviceBuffer a(n * sizeof(double)), b(n * sizeof(double)), d(n * sizeof(double));
  DeviceBuffer partials(shape.blocks * sizeof(double)), expected_partials(shape.blocks * sizeof(double));
  DeviceBuffer counters(2 * sizeof(unsigned long long));
  CUDA_CHECK(kernels::launch_stream_init(a.as<double>(), n, config.seed, 0, shape, stream));
  CUDA_CHECK(kernels::launch_stream_init(b.as<double>(), n, config.seed, 1, shape, stream));
  const auto sc = hbm_scalars(config.seed);

  const auto indices = hbm_sample_indices(n, config.verify_samples, config.seed);
  DeviceBuffer d_indices(indices.size() * sizeof(std::uint64_t)), d_values(indices.size() * sizeof(double));
  CUDA_CHECK(
      cudaMemcpyAsync(d_indices.get(), indices.data(), d_indices.bytes(), cudaMemcpyHostToDevice, stream));

  for (StreamKernel k : config.kernels) {
    HbmKernelResult r;
    r.kernel = k;
    r.bytes_per_op = hbm_bytes_per_op(k, n);
    // A stale d from the previous kernel must not pass for this one's answer.
    CUDA_CHECK(cudaMemsetAsync(d.get(), 0xFF, d.bytes(), stream));
    CudaEventTimer timer(stream, [&] {
      CUDA_CHECK(kernels::launch_stream_kernel(k, a.as<double>(), b.as<double>(), d.as<double>(),
                                               partials.as<double>(), n, sc, shape, stream));
    });
    r.measure = measure(timer, config.measure, hooks);
    stream.synchronize();
    if (corrupt) {
      corrupt(k, a.as<double>(), b.as<double>(), d.as<double>(), n);
      CUDA_CHECK(cudaDeviceSynchronize());
    }

    count_device_mismatches(r, StreamArrays{a, b, d, n}, config.seed, sc, counters, shape, stream);

    if (k == StreamKernel::read) {
      // The timed kernel's own sum (from its last run) against the generator's exact sum.
      r.sum_checked = true;
      r.sum_got = sum_partials(partials, shape.blocks, stream);
      CUDA_CHECK(
          kernels::launch_stream_expected_sum(config.seed, n, expected_partials.as<double>(), shape, stream));
      r.sum_expected = sum_partials(expected_partials, shape.blocks, stream);
    } else {
      // BabelStream's check: replay the arithmetic on the host for sampled elements.
      CUDA_CHECK(kernels::launch_gather_f64(d.as<double>(), d_indices.as<std::uint64_t>(),
                                            static_cast<std::uint32_t>(indices.size()), d_values.as<double>(),
                                            stream));
      std::vector<double> values(indices.size());
      CUDA_CHECK(
          cudaMemcpyAsync(values.data(), d_values.get(), d_values.bytes(), cudaMemcpyDeviceToHost, stream));
      CUDA_CHECK(cudaStreamSynchronize(stream));
      r.replay = replay_stream_samples(k, config.seed, sc, indices, values);
    }
    run.kernels.push_back(std::move(r));
    if (hooks.should_stop && hooks.should_stop()) break;
  }
  return run;
}

}  // namespace gpuqual
