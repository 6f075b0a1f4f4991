#pragma once
// Versions of the GPU software stack as this process sees it: the driver (NVML, else
// /proc/driver/nvidia/version), the CUDA version the driver supports, the CUDA runtime, cuBLAS
// and NCCL gpuqual carries. None of these needs a GPU; on a node without a driver the driver
// fields are empty and the library fields are still filled.
#include <string>
#include <string_view>

namespace gpuqual {

class NvmlSession;

struct StackVersions {
  std::string driver_version;        // "580.95.05"; empty without a driver
  std::string cuda_driver_version;   // "13.0"; empty when cudaDriverGetVersion reports 0
  std::string cuda_runtime_version;  // "13.0"
  std::string cublas_version;        // "13.0.2"
  std::string nccl_version;          // "2.28.3"
  // Each source of the driver version on its own, for core/rules/driver_consistency.hpp; "" when not read.
  std::string kernel_module_version;     // /proc/driver/nvidia/version
  std::string nvml_driver_version;       // nvmlSystemGetDriverVersion
  std::string nvml_cuda_driver_version;  // nvmlSystemGetCudaDriverVersion_v2
  std::string libcuda_version;           // libcuda.so.<version> mapped into this process
};

// 12080 → "12.8", 13000 → "13.0"; 0 (no driver) → "".
std::string cuda_version_string(int encoded);
// The driver version in /proc/driver/nvidia/version's "NVRM version:" line, or "".
std::string parse_proc_driver_version(std::string_view text);

// The version suffix of the first mapping of `library_prefix` ("libcuda.so.") in a
// /proc/self/maps text: ".../libcuda.so.580.95.05" → "580.95.05"; "" when not mapped. The
// runtime loads libcuda by its soname; the file it resolves to is named by the driver release.
std::string parse_mapped_library_version(std::string_view maps_text, std::string_view library_prefix);

// `nvml` may be a session that is not ok(); then the driver version comes from /proc.
StackVersions read_stack_versions(const NvmlSession& nvml);

}  // namespace gpuqual
