#pragma once
// CudaAllocation: move-only owner of one CUDA allocation, parameterised by where the memory
// lives (device memory, page-locked host memory). The destructor frees and never throws (a
// failing free during unwinding has nowhere to go; the first error was thrown).
#include <cstddef>
#include <utility>

#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

template <class Memory>
class CudaAllocation {
 public:
  CudaAllocation() = default;
  // `flags` mean what Memory::allocate makes of them (cudaHostAlloc flags for pinned memory).
  explicit CudaAllocation(std::size_t bytes, unsigned flags = Memory::kDefaultFlags) : bytes_(bytes) {
    if (bytes_ > 0) ptr_ = Memory::allocate(bytes_, flags);
  }
  ~CudaAllocation() { reset(); }
  CudaAllocation(const CudaAllocation&) = delete;
  CudaAllocation& operator=(const CudaAllocation&) = delete;
  CudaAllocation(CudaAllocation&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}
  CudaAllocation& operator=(CudaAllocation&& other) noexcept {
    if (this != &other) {
      reset();
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
    }
    return *this;
  }

  void* get() const { return ptr_; }
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  std::size_t bytes() const { return bytes_; }
  explicit operator bool() const { return ptr_ != nullptr; }

  void reset() noexcept {
    if (ptr_) Memory::free(ptr_);
    ptr_ = nullptr;
    bytes_ = 0;
  }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

}  // namespace gpuqual
