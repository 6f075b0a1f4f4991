#pragma once
// PinnedBuffer: move-only owner of page-locked host memory (cudaHostAlloc), the only kind of
// host memory that PCIe copies reach at full speed and that cudaMemcpyAsync overlaps with.
#include <cstddef>
#include <utility>

#include "device/cuda_error.hpp"

namespace gpuqual {

class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  // `flags`: cudaHostAllocDefault, cudaHostAllocPortable (visible to every device's context), ...
  explicit PinnedBuffer(std::size_t bytes, unsigned flags = cudaHostAllocPortable) : bytes_(bytes) {
    if (bytes_ > 0) CUDA_CHECK(cudaHostAlloc(&ptr_, bytes_, flags));
  }
  ~PinnedBuffer() { reset(); }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }
  std::size_t bytes() const { return bytes_; }
  explicit operator bool() const { return ptr_ != nullptr; }

  void reset() noexcept {
    if (ptr_) (void)cudaFreeHost(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gpuqual
