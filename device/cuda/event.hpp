#pragma once
// Event: move-only owner of a cudaEvent_t, the GPU-side clock every measurement is timed with
// (docs/architecture.md, "Measurement discipline": time on the GPU with CUDA events).
#include <utility>

#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

class Event {
 public:
  // cudaEventDefault records timing; cudaEventDisableTiming for pure synchronisation events.
  explicit Event(unsigned flags = cudaEventDefault) { CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags)); }
  ~Event() { reset(); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)) {}
  Event& operator=(Event&& other) noexcept {
    if (this != &other) {
      reset();
      event_ = std::exchange(other.event_, nullptr);
    }
    return *this;
  }

  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t stream) { CUDA_CHECK(cudaEventRecord(event_, stream)); }
  void synchronize() const { CUDA_CHECK(cudaEventSynchronize(event_)); }

  // Milliseconds between two recorded events (both must have completed; synchronize `stop`).
  static float elapsed_ms(const Event& start, const Event& stop) {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, stop.event_));
    return ms;
  }

 private:
  void reset() noexcept {
    if (event_) (void)cudaEventDestroy(event_);
    event_ = nullptr;
  }
  cudaEvent_t event_ = nullptr;
};

}  // namespace gpuqual
