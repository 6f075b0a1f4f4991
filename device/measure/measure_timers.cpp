#include "device/measure/measure_timers.hpp"

#include <chrono>

namespace gpuqual {

CudaEventTimer::CudaEventTimer(cudaStream_t stream, std::function<void()> enqueue_one)
    : stream_(stream), enqueue_one_(std::move(enqueue_one)) {}

void enqueue_timed_batch(int reps, const std::function<void()>& run_one,
                         const std::function<void()>& record_start,
                         const std::function<void()>& record_stop) {
  run_one();  // untimed: the start event waits behind it, so the GPU is busy when timing starts
  record_start();
  for (int i = 0; i < reps; ++i) run_one();
  record_stop();
}

double CudaEventTimer::time_reps(int reps) {
  enqueue_timed_batch(
      reps, enqueue_one_, [this] { start_.record(stream_); }, [this] { stop_.record(stream_); });
  stop_.synchronize();
  // A kernel fault shows up at the synchronisation or here; never time a failed launch.
  CUDA_CHECK(cudaGetLastError());
  return static_cast<double>(Event::elapsed_ms(start_, stop_)) / 1e3;
}

WallTimer::WallTimer(std::function<void(int reps)> run_and_wait) : run_and_wait_(std::move(run_and_wait)) {}

double WallTimer::time_reps(int reps) {
  const auto t0 = std::chrono::steady_clock::now();
  run_and_wait_(reps);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace gpuqual
