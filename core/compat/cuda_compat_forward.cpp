#include "core/compat/cuda_compat_forward.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "core/base/dotted_version.hpp"

namespace gpuqual {

namespace {

// Data-center GPUs of compute capability 7.5 or newer by the model token NVML and the kernel
// module print ("NVIDIA H100 80GB HBM3" → H100, "Tesla T4" → T4, "NVIDIA A100-SXM4-80GB" → A100).
// Architectures and compute capabilities: NVIDIA, "CUDA GPU Compute Capability"
// (https://developer.nvidia.com/cuda-gpus), and the CUDA 13.0 release notes (CUDA 13 builds for
// 7.5 and newer only, so V100/P100 are not here); docs/compatibility.md.
constexpr std::array<std::string_view, 22> kDataCenterModels = {
    "T4",   "A2",  "A10",  "A16",  "A30",  "A40",   "A100", "A800", "L4",    "L20",  "L40",
    "L40S", "H20", "H100", "H800", "H200", "GH200", "B100", "B200", "GB200", "B300", "GB300"};

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool contains_ci(std::string_view text, std::string_view word) {
  std::string lower(text), w(word);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::transform(w.begin(), w.end(), w.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.find(w) != std::string::npos;
}

}  // namespace

bool forward_compat_product_supported(std::string_view product) {
  // Forward compatibility is offered on data-center GPUs only (NVIDIA CUDA Compatibility guide):
  // never a GeForce, TITAN, Quadro or (workstation) RTX card, whatever its model token.
  for (std::string_view never : {"geforce", "titan", "quadro", "rtx"}) {
    if (contains_ci(product, never)) return false;
  }
  std::string_view rest = product;
  for (std::string_view prefix : {"NVIDIA ", "Tesla "}) {
    if (rest.starts_with(prefix)) rest.remove_prefix(prefix.size());
  }
  const std::string_view model = rest.substr(0, rest.find_first_of(" -"));
  return std::find(kDataCenterModels.begin(), kDataCenterModels.end(), model) != kDataCenterModels.end();
}

ForwardCompatDecision decide_forward_compat(const ForwardCompatHost& host, bool compat_libs_present,
                                            const std::string& compat_dir) {
  ForwardCompatDecision d;
  if (host.driver_version.empty()) {
    d.rule = "no NVIDIA kernel driver (no /proc/driver/nvidia/version): nothing to be compatible with";
    return d;
  }
  const auto driver = parse_driver_version(host.driver_version);
  if (!driver) {
    d.rule = fmt::format("host driver version \"{}\" not understood: host user-mode driver used",
                         host.driver_version);
    return d;
  }
  const int branch = driver->major();
  if (branch >= kCuda13NativeBranch) {
    d.rule = fmt::format("host driver {} (r{}) runs CUDA 13 itself (>= r{}): host user-mode driver",
                         host.driver_version, branch, kCuda13NativeBranch);
    return d;
  }
  if (std::find(kForwardCompatBranches.begin(), kForwardCompatBranches.end(), branch) ==
      kForwardCompatBranches.end()) {
    d.rule = fmt::format(
        "host driver {} (r{}) is older than CUDA 13 needs, and r{} is not a branch {} supports (r{})",
        host.driver_version, branch, branch, kForwardCompatPackage, fmt::join(kForwardCompatBranches, ", r"));
    return d;
  }
  if (host.products.empty()) {
    d.rule = fmt::format(
        "host driver {} (r{}) is older than CUDA 13 needs, but no GPU is listed in "
        "/proc/driver/nvidia/gpus: forward compatibility needs a data-center GPU",
        host.driver_version, branch);
    return d;
  }
  for (const auto& p : host.products) {
    if (!forward_compat_product_supported(p)) {
      d.rule = fmt::format(
          "host driver {} (r{}) is older than CUDA 13 needs, but {} is not a data-center GPU "
          "forward compatibility supports (never GeForce or other RTX/Quadro cards)",
          host.driver_version, branch, p);
      return d;
    }
  }
  if (!compat_libs_present) {
    d.rule = fmt::format(
        "host driver {} (r{}) is older than CUDA 13 needs and forward compatibility would apply, "
        "but {} has no libcuda.so.1 (install {})",
        host.driver_version, branch, compat_dir, kForwardCompatPackage);
    return d;
  }
  d.use = true;
  d.rule = fmt::format(
      "forward compatibility: host driver {} (r{}, a branch {} supports) is older than CUDA 13 needs "
      "(>= r{}), on data-center GPUs ({}); the user-mode driver in {} is used",
      host.driver_version, branch, kForwardCompatPackage, kCuda13NativeBranch, host.products.front(),
      compat_dir);
  return d;
}

std::string parse_nvrm_version(std::string_view text) {
  static const std::regex re(R"(NVRM version:[^\n]*?\s(\d{3}\.\d+(?:\.\d+)?)\s)");
  std::string s(text);
  s += ' ';
  std::smatch m;
  return std::regex_search(s, m, re) ? m[1].str() : "";
}

std::string parse_gpu_information_model(std::string_view text) {
  static const std::regex re(R"((?:^|\n)Model:\s*([^\n]*?)\s*(?:\n|$))");
  std::string s(text);
  std::smatch m;
  return std::regex_search(s, m, re) ? m[1].str() : "";
}

std::string forward_compat_libcuda_version(const std::string& compat_dir) {
  std::error_code ec;
  std::string best;
  for (const auto& e : std::filesystem::directory_iterator(compat_dir, ec)) {
    const std::string name = e.path().filename().string();
    const std::string prefix = "libcuda.so.";
    if (!name.starts_with(prefix)) continue;
    const std::string v = name.substr(prefix.size());
    if (parse_driver_version(v) && v.size() > best.size()) best = v;  // libcuda.so.580.65.06, not .so.1
  }
  return best;
}

ForwardCompatHost read_forward_compat_host(const std::string& proc_driver_dir) {
  namespace fs = std::filesystem;
  ForwardCompatHost h;
  h.driver_version = parse_nvrm_version(read_file(fs::path(proc_driver_dir) / "version"));
  std::error_code ec;
  std::vector<std::string> buses;
  for (const auto& e : fs::directory_iterator(fs::path(proc_driver_dir) / "gpus", ec))
    buses.push_back(e.path().string());
  std::sort(buses.begin(), buses.end());
  for (const auto& b : buses) {
    std::string model = parse_gpu_information_model(read_file(fs::path(b) / "information"));
    if (!model.empty()) h.products.push_back(std::move(model));
  }
  return h;
}

}  // namespace gpuqual
