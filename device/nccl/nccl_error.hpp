#pragma once
// NcclError and NCCL_CHECK(expr). NCCL's status string is generic ("unhandled cuda error"), so
// the message also carries ncclGetLastError(), which names the underlying failure (for example
// the CUDA error behind ncclUnhandledCudaError).
#include <nccl.h>

#include "device/cuda/api_error.hpp"

namespace gpuqual {

class NcclError : public DeviceApiError {
 public:
  NcclError(ncclResult_t status, std::string call, std::string file, int line)
      : DeviceApiError("NCCL", static_cast<long long>(status), std::move(call), std::move(file), line,
                       describe(status)),
        status_(status) {}
  ncclResult_t status() const { return status_; }

  static std::string describe(ncclResult_t status) {
    const char* text = ncclGetErrorString(status);
    std::string message = text ? text : "unknown NCCL error";
    const char* last = ncclGetLastError(nullptr);
    if (last && *last) message += std::string(" (") + last + ")";
    return message;
  }

 private:
  ncclResult_t status_;
};

inline void nccl_check(ncclResult_t status, const char* call, const char* file, int line) {
  // ncclInProgress is the normal answer of non-blocking communicators, not a failure.
  if (status != ncclSuccess && status != ncclInProgress) throw NcclError(status, call, file, line);
}

}  // namespace gpuqual

// Throws gpuqual::NcclError when `expr` (an ncclResult_t expression) is not ncclSuccess.
#define NCCL_CHECK(expr) ::gpuqual::nccl_check((expr), #expr, __FILE__, __LINE__)
