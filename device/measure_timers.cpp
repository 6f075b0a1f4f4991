#include "device/measure_timers.hpp"

#include <chrono>

namespace gpuqual {

CudaEventTimer::CudaEventTimer(cudaStream_t stream, std::function<void()> enqueue_one)
    : stream_(stream), enqueue_one_(std::move(enqueue_one)) {}

double CudaEventTimer::time_reps(int reps) {
  start_.record(stream_);
  for (int i = 0; i < reps; ++i) enqueue_one_();
  stop_.record(stream_);
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
