#pragma once
// The SampleTimers the checks use on a GPU.
//  - CudaEventTimer: events recorded on the stream around `reps` enqueued runs; the GPU's own
//    clock, so host jitter and launch latency outside the stream do not count. The start event
//    is recorded behind one untimed run (enqueue_timed_batch): on an idle stream it would
//    complete at once and the interval would include the first launch's latency and any gap
//    while the host enqueues the rest.
//  - WallTimer: the host's steady clock around a callable that runs `reps` operations and waits
//    for them, for work spread over several GPUs at once (no single stream to record on).
#include <cuda_runtime_api.h>

#include <functional>

#include "device/cuda/event.hpp"
#include "device/measure/measure.hpp"

namespace gpuqual {

// The order of one timed batch: one untimed run, the start event, `reps` runs, the stop event.
void enqueue_timed_batch(int reps, const std::function<void()>& run_one,
                         const std::function<void()>& record_start, const std::function<void()>& record_stop);

class CudaEventTimer : public SampleTimer {
 public:
  // `enqueue_one` enqueues one run of the operation on `stream` (it must not synchronise).
  CudaEventTimer(cudaStream_t stream, std::function<void()> enqueue_one);
  double time_reps(int reps) override;

 private:
  cudaStream_t stream_;
  std::function<void()> enqueue_one_;
  Event start_, stop_;
};

class WallTimer : public SampleTimer {
 public:
  // `run_and_wait(reps)` runs the operation `reps` times and returns when all of it finished.
  explicit WallTimer(std::function<void(int reps)> run_and_wait);
  double time_reps(int reps) override;

 private:
  std::function<void(int)> run_and_wait_;
};

}  // namespace gpuqual
