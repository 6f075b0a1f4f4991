#include "device/burnin/burnin_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "device/burnin/burnin_gemm.hpp"
#include "device/cuda/cuda_error.hpp"
#include "device/cuda/device_buffer.hpp"
#include "device/cuda/event.hpp"
#include "device/cuda/stream.hpp"
#include "device/measure/measure_timers.hpp"

namespace gpuqual {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Adds one memtest run into the running total: passes and errors add up, first errors are kept
// up to the per-pattern cap, bytes are the latest run's region.
void accumulate(MemtestRunResult& total, const MemtestRunResult& run) {
  total.free_bytes = run.free_bytes;
  total.total_bytes = run.total_bytes;
  total.target_bytes = run.target_bytes;
  total.bytes_tested = run.bytes_tested;
  if (!run.allocation_note.empty()) total.allocation_note = run.allocation_note;
  total.passes_completed += run.passes_completed;
  total.seconds += run.seconds;
  total.bytes_moved += run.bytes_moved;
  total.stopped = total.stopped || run.stopped;
  if (total.patterns.empty()) {
    total.patterns = run.patterns;
    return;
  }
  for (std::size_t i = 0; i < total.patterns.size() && i < run.patterns.size(); ++i) {
    auto& t = total.patterns[i];
    t.passes_run += run.patterns[i].passes_run;
    t.errors += run.patterns[i].errors;
    for (const auto& e : run.patterns[i].first_errors) {
      if (t.first_errors.size() < 64) t.first_errors.push_back(e);
    }
  }
}

}  // namespace

std::uint64_t burnin_warmup_batch(double elapsed_s, double warmup_s, double one_product_s) {
  if (!(warmup_s > 0) || !(elapsed_s < warmup_s)) return 0;
  const double slice = std::min(kBurninWarmupBatchS, warmup_s - elapsed_s);
  const double n = std::ceil(slice / std::max(one_product_s, 1e-6));
  return static_cast<std::uint64_t>(std::clamp(n, 1.0, 10000.0));
}

// Calibrate: one product and its fingerprint, to size the window. The first launch loads
// cuBLASLt's kernels lazily and the stream is idle before it: an untimed product runs first and
// the start event waits behind it (enqueue_timed_batch, device/measure/measure_timers.hpp). Returns the
// product's seconds; the fingerprint goes to *hash.
static double calibrate(BurninGemm& gemm, Stream& stream, const BurninCorruptor& corrupt,
                        unsigned long long* hash) {
  DeviceBuffer probe_slot(sizeof(unsigned long long));
  CUDA_CHECK(cudaMemsetAsync(probe_slot.get(), 0, probe_slot.bytes(), stream.get()));
  Event c0, c1;
  enqueue_timed_batch(
      1, [&] { gemm.enqueue_gemm(); }, [&] { c0.record(stream.get()); }, [&] { c1.record(stream.get()); });
  if (corrupt) {
    stream.synchronize();
    corrupt(0, gemm.output(), gemm.output_bytes());
    // The corruptor writes with the legacy default stream (cudaMemcpy from pageable memory may
    // return before its DMA lands) and this stream is non-blocking, so nothing orders the two:
    // wait for the whole device, so the next kernel reads the corrupted value.
    CUDA_CHECK(cudaDeviceSynchronize());
  }
  gemm.enqueue_hash(probe_slot.as<unsigned long long>());
  CUDA_CHECK(cudaMemcpyAsync(hash, probe_slot.get(), sizeof *hash, cudaMemcpyDeviceToHost, stream.get()));
  stream.synchronize();
  return std::max(1e-6, Event::elapsed_ms(c0, c1) / 1e3);
}

// Warm-up: the boost/power transient of a dense GEMM lasts about a second; products run in it
// are neither timed nor fingerprinted. Measured by the wall clock (burnin_warmup_batch).
template <class Stop>
static void warm_up(BurninGemm& gemm, Stream& stream, double warmup_s, double one_s, Stop&& stop) {
  const auto warm0 = Clock::now();
  for (std::uint64_t n; !stop() && (n = burnin_warmup_batch(seconds_since(warm0), warmup_s, one_s)) > 0;) {
    for (std::uint64_t i = 0; i < n; ++i) gemm.enqueue_gemm();
    stream.synchronize();
  }
}

// A wrong first product ends the burn-in at once: there is no right answer to hold the rest to.
static BurninGpuResult finish_wrong_first(BurninGpuResult& r, Clock::time_point t0) {
  r.gemms = 1;
  r.elapsed_s = seconds_since(t0);
  return std::move(r);
}

BurninGpuResult run_burnin(const BurninConfig& config, const std::function<bool()>& should_stop,
                           const BurninWindowHook& on_window, const BurninCorruptor& corrupt) {
  const auto t0 = Clock::now();
  const auto stop = [&] { return should_stop && should_stop(); };
  BurninGpuResult r;
  Stream stream;
  BurninGemm gemm(config.precision, config.size, config.seed, stream.get());

  unsigned long long first_hash = 0;
  const double one_s = calibrate(gemm, stream, corrupt, &first_hash);
  // Check the answer, not only its consistency: the first product against the host reference on
  // sampled elements; only a right one's fingerprint becomes the reference (iteration 0).
  r.first_product = gemm.check_output(config.verify_samples);
  if (!r.first_product.passed()) return finish_wrong_first(r, t0);
  r.compare.observe(0, first_hash);
  const auto per_window = static_cast<std::size_t>(std::clamp(config.window_s / one_s, 1.0, 4096.0));

  warm_up(gemm, stream, config.warmup_s, one_s, stop);

  DeviceBuffer slots(per_window * sizeof(unsigned long long));
  std::vector<unsigned long long> hashes(per_window);
  std::vector<Event> starts(per_window), ends(per_window);
  auto last_memtest = Clock::now();
  std::uint64_t iteration = 1;

  while (!stop() && seconds_since(t0) < config.duration_s) {
    CUDA_CHECK(cudaMemsetAsync(slots.get(), 0, slots.bytes(), stream.get()));
    for (std::size_t i = 0; i < per_window; ++i) {
      starts[i].record(stream.get());
      gemm.enqueue_gemm();
      ends[i].record(stream.get());
      if (corrupt) {
        stream.synchronize();
        corrupt(iteration + i, gemm.output(), gemm.output_bytes());
        CUDA_CHECK(cudaDeviceSynchronize());  // ordered after the corruptor's writes: see calibrate()
      }
      gemm.enqueue_hash(slots.as<unsigned long long>() + i);
    }
    CUDA_CHECK(
        cudaMemcpyAsync(hashes.data(), slots.get(), slots.bytes(), cudaMemcpyDeviceToHost, stream.get()));
    stream.synchronize();
    double window_gemm_s = 0;
    for (std::size_t i = 0; i < per_window; ++i) {
      window_gemm_s += Event::elapsed_ms(starts[i], ends[i]) / 1e3;
      r.compare.observe(iteration + i, hashes[i]);
    }
    iteration += per_window;
    r.gemms += per_window;
    r.gemm_seconds += window_gemm_s;
    const double tflops = window_gemm_s > 0
                              ? gemm.flops_per_gemm() * static_cast<double>(per_window) / window_gemm_s / 1e12
                              : 0;
    r.tflops.add(tflops);
    if (on_window) on_window(seconds_since(t0), tflops);

    if (config.memtest_every_s > 0 &&
        std::chrono::duration<double>(Clock::now() - last_memtest).count() >= config.memtest_every_s) {
      MemtestConfig mc = config.memtest;
      mc.passes = 1;
      const double left = config.duration_s - seconds_since(t0);
      if (left <= 0) break;
      const auto deadline =
          Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(left));
      const MemtestRunResult run = run_memtest(mc, [&] { return stop() || Clock::now() > deadline; });
      accumulate(r.memtest, run);
      ++r.memtest_runs;
      last_memtest = Clock::now();
    }
  }
  r.elapsed_s = seconds_since(t0);
  r.stopped = stop() && r.elapsed_s < config.duration_s;
  return r;
}

}  // namespace gpuqual
