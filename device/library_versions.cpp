#include "device/library_versions.hpp"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <library_types.h>
#include <nccl.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "device/nvml_library.hpp"

namespace gpuqual {

std::string cuda_version_string(int encoded) {
  if (encoded <= 0) return {};
  return std::to_string(encoded / 1000) + "." + std::to_string((encoded % 1000) / 10);
}

std::string parse_proc_driver_version(std::string_view text) {
  // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.95.05  Tue Sep 23 ..." (open modules say
  // "NVIDIA UNIX Open Kernel Module for x86_64  580.95.05  Release Build ...").
  static const std::regex re(R"(NVRM version:.*?\s([0-9]{3,}\.[0-9]+(?:\.[0-9]+)?)\s)");
  std::string s(text);
  std::smatch m;
  if (std::regex_search(s, m, re)) return m[1].str();
  return {};
}

StackVersions read_stack_versions(const NvmlSession& nvml) {
  StackVersions v;
  if (nvml.ok() && nvml.api().nvmlSystemGetDriverVersion) {
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (nvml.api().nvmlSystemGetDriverVersion(buf, sizeof buf) == NVML_SUCCESS) v.driver_version = buf;
  }
  if (v.driver_version.empty()) {
    std::ifstream in("/proc/driver/nvidia/version");
    std::ostringstream ss;
    ss << in.rdbuf();
    v.driver_version = parse_proc_driver_version(ss.str());
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) v.cuda_driver_version = cuda_version_string(driver);
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) v.cuda_runtime_version = cuda_version_string(runtime);
  int major = 0, minor = 0, patch = 0;
  if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
      cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS) {
    v.cublas_version = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  }
  int nccl = 0;
  if (ncclGetVersion(&nccl) == ncclSuccess && nccl > 0) {
    // NCCL_VERSION_CODE since 2.9: major*10000 + minor*100 + patch.
    v.nccl_version = std::to_string(nccl / 10000) + "." + std::to_string((nccl / 100) % 100) + "." +
                     std::to_string(nccl % 100);
  }
  return v;
}

}  // namespace gpuqual
