#pragma once
// CublasHandle and CublasLtHandle: move-only owners of cuBLAS / cuBLASLt library handles.
// A handle belongs to the device that was current when it was created.
#include <cublasLt.h>
#include <cublas_v2.h>

#include <utility>

#include "device/cublas/cublas_error.hpp"

namespace gpuqual {

class CublasHandle {
 public:
  CublasHandle() { CUBLAS_CHECK(cublasCreate(&handle_)); }
  ~CublasHandle() { reset(); }
  CublasHandle(const CublasHandle&) = delete;
  CublasHandle& operator=(const CublasHandle&) = delete;
  CublasHandle(CublasHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CublasHandle& operator=(CublasHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  cublasHandle_t get() const { return handle_; }
  void set_stream(cudaStream_t stream) { CUBLAS_CHECK(cublasSetStream(handle_, stream)); }

 private:
  void reset() noexcept {
    if (handle_) (void)cublasDestroy(handle_);
    handle_ = nullptr;
  }
  cublasHandle_t handle_ = nullptr;
};

class CublasLtHandle {
 public:
  CublasLtHandle() { CUBLAS_CHECK(cublasLtCreate(&handle_)); }
  ~CublasLtHandle() { reset(); }
  CublasLtHandle(const CublasLtHandle&) = delete;
  CublasLtHandle& operator=(const CublasLtHandle&) = delete;
  CublasLtHandle(CublasLtHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  CublasLtHandle& operator=(CublasLtHandle&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, nullptr);
    }
    return *this;
  }

  cublasLtHandle_t get() const { return handle_; }

 private:
  void reset() noexcept {
    if (handle_) (void)cublasLtDestroy(handle_);
    handle_ = nullptr;
  }
  cublasLtHandle_t handle_ = nullptr;
};

}  // namespace gpuqual
