#pragma once
// DeviceGuard: makes one GPU current for a scope and restores the previous one, so per-GPU
// worker threads and helpers never leave the calling thread on a different device.
#include "device/cuda/cuda_error.hpp"

namespace gpuqual {

class DeviceGuard {
 public:
  explicit DeviceGuard(int device) {
    CUDA_CHECK(cudaGetDevice(&previous_));
    CUDA_CHECK(cudaSetDevice(device));
  }
  ~DeviceGuard() { (void)cudaSetDevice(previous_); }
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = 0;
};

}  // namespace gpuqual
