#pragma once
// NvmlError and NVML_CHECK(expr). NVML is loaded at run time (dlopen, see nvml_library.hpp), so
// the message comes from the loaded library's nvmlErrorString when it is there, else from a
// built-in name of the status.
#include <nvml.h>

#include "device/cuda/api_error.hpp"

namespace gpuqual {

// The library's text for `status` (nvmlErrorString of the loaded libnvidia-ml), or a built-in
// name ("NVML_ERROR_NOT_SUPPORTED") when NVML is not loaded. Defined in nvml_library.cpp.
std::string nvml_error_text(nvmlReturn_t status);

class NvmlError : public DeviceApiError {
 public:
  NvmlError(nvmlReturn_t status, std::string call, std::string file, int line)
      : DeviceApiError("NVML", static_cast<long long>(status), std::move(call), std::move(file), line,
                       nvml_error_text(status)),
        status_(status) {}
  nvmlReturn_t status() const { return status_; }

 private:
  nvmlReturn_t status_;
};

inline void nvml_check(nvmlReturn_t status, const char* call, const char* file, int line) {
  if (status != NVML_SUCCESS) throw NvmlError(status, call, file, line);
}

}  // namespace gpuqual

// Throws gpuqual::NvmlError when `expr` (an nvmlReturn_t expression) is not NVML_SUCCESS.
#define NVML_CHECK(expr) ::gpuqual::nvml_check((expr), #expr, __FILE__, __LINE__)
