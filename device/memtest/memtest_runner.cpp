#include "device/memtest/memtest_runner.hpp"

#include <cuda_runtime_api.h>

#include <chrono>

#include "device/cuda/cuda_error.hpp"
#include "device/cuda/device_buffer.hpp"
#include "device/cuda/stream.hpp"
#include "kernels/memtest_kernels.cuh"

namespace gpuqual {
namespace {
constexpr std::size_t kMaxKeptErrors = 64;  // per pattern, over all passes and chunks

// The pattern's error log, read back after its last step: the count, and the first errors kept.
void add_logged_errors(MemtestPatternResult& pr, const kernels::MemtestErrorLog* log, cudaStream_t stream) {
  kernels::MemtestErrorLog host{};
  CUDA_CHECK(cudaMemcpyAsync(&host, log, sizeof(host), cudaMemcpyDeviceToHost, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  pr.errors += host.count;
  const auto logged = host.count < kernels::kMemtestLogCapacity ? host.count : kernels::kMemtestLogCapacity;
  for (unsigned long long i = 0; i < logged && pr.first_errors.size() < kMaxKeptErrors; ++i) {
    pr.first_errors.push_back(host.entries[i]);
  }
}

}  // namespace

unsigned long long MemtestRunResult::total_errors() const {
  unsigned long long n = 0;
  for (const auto& p : patterns) n += p.errors;
  return n;
}

MemtestRunResult run_memtest(const MemtestConfig& config, const std::function<bool()>& should_stop,
                             const MemtestCorruptor& corrupt) {
  const auto t0 = std::chrono::steady_clock::now();
  MemtestRunResult r;
  std::size_t free_b = 0, total_b = 0;
  CUDA_CHECK(cudaMemGetInfo(&free_b, &total_b));
  r.free_bytes = free_b;
  r.total_bytes = total_b;
  r.target_bytes = memtest_target_bytes(free_b, config.fraction_of_free);
  if (config.max_bytes > 0 && r.target_bytes > config.max_bytes) r.target_bytes = config.max_bytes / 8 * 8;

  // The error log first, so the region's allocation cannot starve it.
  DeviceBuffer log_buf(sizeof(kernels::MemtestErrorLog));
  auto* log = log_buf.as<kernels::MemtestErrorLog>();
  std::vector<DeviceBuffer> chunks;
  std::vector<std::uint64_t> chunk_base;
  std::uint64_t base = 0;
  for (std::uint64_t bytes : plan_memtest_chunks(r.target_bytes, config.chunk_bytes)) {
    try {
      chunks.emplace_back(bytes);
    } catch (const CudaError& e) {
      if (e.status() != cudaErrorMemoryAllocation) throw;
      (void)cudaGetLastError();  // allocation failures are not sticky; clear the last-error slot
      r.allocation_note = "cudaMalloc of a " + std::to_string(bytes >> 20) + " MiB chunk failed after " +
                          std::to_string(base * 8 >> 20) + " MiB (memory taken by others meanwhile?)";
      break;
    }
    chunk_base.push_back(base);
    base += bytes / 8;
  }
  r.bytes_tested = base * 8;

  int dev = 0, sms = 1;
  CUDA_CHECK(cudaGetDevice(&dev));
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  const unsigned blocks = static_cast<unsigned>(sms) * 8;
  Stream stream;
  for (MemtestPattern p : config.patterns) r.patterns.push_back(MemtestPatternResult{p, 0, 0, {}});

  for (std::uint32_t pass = 0; pass < config.passes && !r.stopped; ++pass) {
    for (auto& pr : r.patterns) {
      const std::uint32_t steps = kernels::memtest_steps(pr.pattern);
      CUDA_CHECK(cudaMemsetAsync(log, 0, sizeof(kernels::MemtestErrorLog), stream.get()));
      for (std::uint32_t step = 0; step <= steps; ++step) {
        if (should_stop && should_stop()) {
          r.stopped = true;
          break;
        }
        for (std::size_t c = 0; c < chunks.size(); ++c) {
          const std::uint64_t n = chunks[c].bytes() / 8;
          CUDA_CHECK(kernels::launch_memtest_step(chunks[c].as<std::uint64_t>(), n, chunk_base[c], pr.pattern,
                                                  config.seed, pass, step, log, blocks,
                                                  config.threads_per_block, stream.get()));
          if (step == 0 && corrupt) {
            CUDA_CHECK(cudaStreamSynchronize(stream.get()));
            corrupt(pr.pattern, chunks[c].as<std::uint64_t>(), n);
            // The corruptor writes with the legacy default stream (cudaMemcpy from pageable memory
            // may return before its DMA lands) and this stream is non-blocking, so nothing orders
            // the two: wait for the whole device, so the next step reads the corrupted word.
            CUDA_CHECK(cudaDeviceSynchronize());
          }
        }
        // Bounded queue depth and a prompt stop: one sync per step over the region.
        CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        r.bytes_moved += static_cast<double>(r.bytes_tested) * ((step > 0) + (step < steps));
      }
      add_logged_errors(pr, log, stream.get());
      if (r.stopped) break;
      ++pr.passes_run;
    }
    if (!r.stopped) ++r.passes_completed;
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

}  // namespace gpuqual
