#pragma once
// CudaError and CUDA_CHECK(expr) for the CUDA runtime API. A failing call throws with the
// status name and string from the runtime (cudaGetErrorName / cudaGetErrorString).
#include <cuda_runtime_api.h>

#include "device/cuda/api_error.hpp"

namespace gpuqual {

class CudaError : public DeviceApiError {
 public:
  CudaError(cudaError_t status, std::string call, std::string file, int line)
      : DeviceApiError("CUDA", static_cast<long long>(status), std::move(call), std::move(file), line,
                       describe(status)),
        status_(status) {}
  cudaError_t status() const { return status_; }

  static std::string describe(cudaError_t status) {
    const char* name = cudaGetErrorName(status);
    const char* text = cudaGetErrorString(status);
    return std::string(name ? name : "cudaError?") + ": " + (text ? text : "unknown error");
  }

 private:
  cudaError_t status_;
};

inline void cuda_check(cudaError_t status, const char* call, const char* file, int line) {
  if (status != cudaSuccess) throw CudaError(status, call, file, line);
}

}  // namespace gpuqual

// Throws gpuqual::CudaError when `expr` (a cudaError_t expression) is not cudaSuccess.
#define CUDA_CHECK(expr) ::gpuqual::cuda_check((expr), #expr, __FILE__, __LINE__)
