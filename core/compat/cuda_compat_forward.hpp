#pragma once
// Forward compatibility for gpuqual itself: when may the CUDA 13 runtime gpuqual carries run on
// an older host driver through NVIDIA's cuda-compat-13-0 user-mode driver (libcuda.so.1 in
// /usr/local/cuda/compat)? Exactly when all hold (NVIDIA CUDA Compatibility guide, "Forward
// Compatibility", https://docs.nvidia.com/deploy/cuda-compatibility/forward-compatibility.html;
// docs/compatibility.md, "Forward compatibility"):
//   - the host driver is older than CUDA 13 needs (branch < 580: below minor-version compatibility);
//   - its branch is one CUDA 13.0's own images accept through the compat package:
//     NVIDIA_REQUIRE_CUDA of nvidia/cuda:13.0.0 lists r535, r550, r565, r570, r575;
//   - every GPU is a data-center GPU (forward compatibility is not offered on GeForce or other
//     RTX/Quadro cards), and one CUDA 13 can use (compute capability 7.5 or newer);
//   - the compat libraries are there.
// Everything here is read without CUDA and without NVML (/proc/driver/nvidia), so it can run
// before the CUDA runtime loads libcuda.so.1.
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

// The driver branches CUDA 13.0's images accept with cuda-compat (cuda-image-env.md section 1).
inline constexpr std::array<int, 5> kForwardCompatBranches = {535, 550, 565, 570, 575};
// From this branch on, CUDA 13 runs natively (minor-version compatibility, cuda-compatibility.md).
inline constexpr int kCuda13NativeBranch = 580;
inline constexpr const char* kForwardCompatPackage = "cuda-compat-13-0";
inline constexpr const char* kDefaultForwardCompatDir = "/usr/local/cuda/compat";

struct ForwardCompatHost {
  std::string driver_version;         // "535.161.08" from /proc/driver/nvidia/version; empty: no driver
  std::vector<std::string> products;  // each GPU's model ("NVIDIA H100 80GB HBM3")
};

struct ForwardCompatDecision {
  bool use = false;
  std::string rule;  // the rule that decided, one sentence (shown by the compat preflight)
};

// Whether `product` (an NVIDIA product name) is a data-center GPU forward compatibility
// supports: Turing T4 and newer data-center parts; never GeForce, TITAN, Quadro or RTX cards.
bool forward_compat_product_supported(std::string_view product);

// The rule, given the host and whether `compat_dir` holds libcuda.so.1.
ForwardCompatDecision decide_forward_compat(const ForwardCompatHost& host, bool compat_libs_present,
                                            const std::string& compat_dir);

// "NVRM version: NVIDIA UNIX x86_64 Kernel Module  535.161.08  ..." → "535.161.08"; "" if absent.
std::string parse_nvrm_version(std::string_view proc_version_text);
// The "Model:" line of /proc/driver/nvidia/gpus/<bus id>/information; "" if absent.
std::string parse_gpu_information_model(std::string_view information_text);

// The version of the user-mode driver in a compat directory, from its libcuda.so.<version> file
// ("580.65.06"); "" when there is none.
std::string forward_compat_libcuda_version(const std::string& compat_dir);

// Reads `proc_driver_dir` (/proc/driver/nvidia): version, and gpus/*/information.
ForwardCompatHost read_forward_compat_host(const std::string& proc_driver_dir);

}  // namespace gpuqual
