#pragma once
// CublasError and CUBLAS_CHECK(expr) for cuBLAS and cuBLASLt (both return cublasStatus_t).
// The message is cuBLAS's own (cublasGetStatusName / cublasGetStatusString).
#include <cublas_api.h>

#include "device/cuda/api_error.hpp"

namespace gpuqual {

class CublasError : public DeviceApiError {
 public:
  CublasError(cublasStatus_t status, std::string call, std::string file, int line)
      : DeviceApiError("cuBLAS", static_cast<long long>(status), std::move(call), std::move(file), line,
                       describe(status)),
        status_(status) {}
  cublasStatus_t status() const { return status_; }

  static std::string describe(cublasStatus_t status) {
    const char* name = cublasGetStatusName(status);
    const char* text = cublasGetStatusString(status);
    return std::string(name ? name : "CUBLAS_STATUS_?") + ": " + (text ? text : "unknown error");
  }

 private:
  cublasStatus_t status_;
};

inline void cublas_check(cublasStatus_t status, const char* call, const char* file, int line) {
  if (status != CUBLAS_STATUS_SUCCESS) throw CublasError(status, call, file, line);
}

}  // namespace gpuqual

// Throws gpuqual::CublasError when `expr` (a cublasStatus_t expression) is not SUCCESS.
#define CUBLAS_CHECK(expr) ::gpuqual::cublas_check((expr), #expr, __FILE__, __LINE__)
