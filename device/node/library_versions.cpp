#include "device/node/library_versions.hpp"

#include <cublas_api.h>
#include <cuda_runtime_api.h>
#include <library_types.h>
#include <nccl.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "device/nvml/nvml_library.hpp"

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

std::string parse_mapped_library_version(std::string_view maps_text, std::string_view library_prefix) {
  std::size_t pos = 0;
  while ((pos = maps_text.find(library_prefix, pos)) != std::string_view::npos) {
    // The prefix must start a file name ("/usr/lib/x86_64-linux-gnu/libcuda.so.580.95.05").
    const bool starts_name = pos == 0 || maps_text[pos - 1] == '/';
    pos += library_prefix.size();
    std::size_t end = pos;
    while (end < maps_text.size() && maps_text[end] != '\n' && maps_text[end] != ' ') ++end;
    const std::string_view version = maps_text.substr(pos, end - pos);
    // "libcuda.so.1" is the soname link, not a release: a release has a dot ("580.95.05").
    if (starts_name && version.find('.') != std::string_view::npos &&
        version.find_first_not_of("0123456789.") == std::string_view::npos) {
      return std::string(version);
    }
  }
  return {};
}

namespace {

std::string slurp(const char* path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

StackVersions read_stack_versions(const NvmlSession& nvml) {
  StackVersions v;
  if (nvml.ok() && nvml.api().nvmlSystemGetDriverVersion) {
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    if (nvml.api().nvmlSystemGetDriverVersion(buf, sizeof buf) == NVML_SUCCESS) v.nvml_driver_version = buf;
  }
  if (nvml.ok() && nvml.api().nvmlSystemGetCudaDriverVersion_v2) {
    int encoded = 0;
    if (nvml.api().nvmlSystemGetCudaDriverVersion_v2(&encoded) == NVML_SUCCESS) {
      v.nvml_cuda_driver_version = cuda_version_string(encoded);
    }
  }
  v.kernel_module_version = parse_proc_driver_version(slurp("/proc/driver/nvidia/version"));
  v.driver_version = !v.nvml_driver_version.empty() ? v.nvml_driver_version : v.kernel_module_version;
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) v.cuda_driver_version = cuda_version_string(driver);
  // cudaDriverGetVersion has made the runtime load libcuda (when there is one).
  v.libcuda_version = parse_mapped_library_version(slurp("/proc/self/maps"), "libcuda.so.");
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
