#pragma once
// Stream: move-only owner of a cudaStream_t. Non-blocking by default, so measurements do not
// serialise against the legacy default stream of other libraries.
#include <utility>

#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

class Stream {
 public:
  explicit Stream(unsigned flags = cudaStreamNonBlocking) {
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, flags));
  }
  ~Stream() { reset(); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  Stream(Stream&& other) noexcept : stream_(std::exchange(other.stream_, nullptr)) {}
  Stream& operator=(Stream&& other) noexcept {
    if (this != &other) {
      reset();
      stream_ = std::exchange(other.stream_, nullptr);
    }
    return *this;
  }

  cudaStream_t get() const { return stream_; }
  operator cudaStream_t() const { return stream_; }  // NOLINT: passes straight into CUDA calls
  void synchronize() const { CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  void reset() noexcept {
    if (stream_) (void)cudaStreamDestroy(stream_);
    stream_ = nullptr;
  }
  cudaStream_t stream_ = nullptr;
};

}  // namespace gpuqual
