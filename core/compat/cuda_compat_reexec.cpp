#include "core/compat/cuda_compat_reexec.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string_view>

#include "core/compat/cuda_compat_forward.hpp"

namespace gpuqual {

namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
}  // namespace

std::string forward_compat_library_path(const std::string& dir, const char* old_value) {
  if (old_value == nullptr || *old_value == '\0') return dir;
  return dir + ":" + old_value;
}

void reexec_with_forward_compat_if_eligible(char** argv) {
  if (std::getenv(kForwardCompatActiveEnv) != nullptr) return;  // already running with it
  if (std::string_view(env_or("GPUQUAL_FORWARD_COMPAT", "auto")) == "off") return;
  const std::string dir = env_or("GPUQUAL_FORWARD_COMPAT_DIR", kDefaultForwardCompatDir);
  const ForwardCompatHost host =
      read_forward_compat_host(env_or("GPUQUAL_PROC_DRIVER_DIR", "/proc/driver/nvidia"));
  std::error_code ec;
  const bool libs = std::filesystem::exists(std::filesystem::path(dir) / "libcuda.so.1", ec);
  const ForwardCompatDecision d = decide_forward_compat(host, libs, dir);
  if (!d.use) return;
  const std::string path = forward_compat_library_path(dir, std::getenv("LD_LIBRARY_PATH"));
  ::setenv("LD_LIBRARY_PATH", path.c_str(), 1);
  ::setenv(kForwardCompatActiveEnv, dir.c_str(), 1);
  std::fprintf(stderr, "gpuqual: %s (re-executing with LD_LIBRARY_PATH=%s)\n", d.rule.c_str(), path.c_str());
  std::fflush(stderr);
  ::execv("/proc/self/exe", argv);
  const int err = errno;
  // Could not re-execute: run on the host driver, and say so (the checks then report why CUDA
  // cannot start).
  ::unsetenv(kForwardCompatActiveEnv);
  std::fprintf(
      stderr, "gpuqual: forward compatibility: cannot re-execute /proc/self/exe: %s; using the host driver\n",
      std::strerror(err));
}

}  // namespace gpuqual
