#pragma once
// The common shape of the typed errors thrown by CUDA_CHECK, CUBLAS_CHECK, NCCL_CHECK and
// NVML_CHECK (docs/architecture.md, "Conventions"): which library, its numeric status, the call text as
// written, where it was called (file:line) and the library's own message. The runner catches
// these per check and records `error` with what() as the reason.
//
// Header-only on purpose: kernels/ (.cu) and device/ both throw these without a link-order
// cycle between gpuqual_kernels and gpuqual_device. No nlohmann/fmt here (kept out of .cu files).
#include <stdexcept>
#include <string>

namespace gpuqual {

class DeviceApiError : public std::runtime_error {
 public:
  DeviceApiError(std::string api, long long code, std::string call, std::string file, int line,
                 std::string message)
      : std::runtime_error(compose(api, code, call, file, line, message)),
        api_(std::move(api)),
        code_(code),
        call_(std::move(call)),
        file_(std::move(file)),
        line_(line),
        message_(std::move(message)) {}

  const std::string& api() const { return api_; }    // "CUDA", "cuBLAS", "NCCL", "NVML"
  long long code() const { return code_; }           // the library's status value
  const std::string& call() const { return call_; }  // the expression, as written
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& message() const { return message_; }  // the library's own text

 private:
  // "CUDA error 35 at device/node/inventory.cpp:41: cudaGetDeviceCount(&n): cudaErrorInsufficientDriver:
  //  CUDA driver version is insufficient for CUDA runtime version"
  static std::string compose(const std::string& api, long long code, const std::string& call,
                             const std::string& file, int line, const std::string& message) {
    return api + " error " + std::to_string(code) + " at " + short_path(file) + ":" + std::to_string(line) +
           ": " + call + ": " + message;
  }
  // __FILE__ is absolute with some generators; keep the part from the repo's top folder on.
  static std::string short_path(const std::string& file) {
    for (const char* top : {"/device/", "/kernels/", "/suites/", "/runner/", "/tests/", "/core/"}) {
      auto pos = file.rfind(top);
      if (pos != std::string::npos) return file.substr(pos + 1);
    }
    return file;
  }

  std::string api_;
  long long code_;
  std::string call_;
  std::string file_;
  int line_;
  std::string message_;
};

}  // namespace gpuqual
