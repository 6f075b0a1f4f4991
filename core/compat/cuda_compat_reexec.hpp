#pragma once
// Choosing the user-mode driver before the CUDA runtime loads libcuda.so.1: the dynamic loader
// reads LD_LIBRARY_PATH once, at process start, so a process that should use the forward-compat
// libcuda.so.1 (cuda_compat_forward.hpp) re-executes itself with the compat directory first on
// LD_LIBRARY_PATH. Called first thing in main for the commands that load the CUDA runtime.
//
// Environment: GPUQUAL_FORWARD_COMPAT=off never re-executes; GPUQUAL_FORWARD_COMPAT_DIR names the
// compat directory (default /usr/local/cuda/compat); GPUQUAL_PROC_DRIVER_DIR replaces
// /proc/driver/nvidia (tests). The re-executed process has GPUQUAL_FORWARD_COMPAT_ACTIVE set to the
// directory, so it never re-executes again, and so do the check children it starts.
#include <string>

namespace gpuqual {

inline constexpr const char* kForwardCompatActiveEnv = "GPUQUAL_FORWARD_COMPAT_ACTIVE";

// `dir` first, then the previous value (if any): "dir" or "dir:old".
std::string forward_compat_library_path(const std::string& dir, const char* old_value);

// Re-executes /proc/self/exe with `argv` when forward compatibility applies and this process does
// not run with it yet; prints the rule on stderr when it does. Returns when it did not re-execute
// (not eligible, disabled, already active, or execv failed: that is reported and the host driver
// is used).
void reexec_with_forward_compat_if_eligible(char** argv);

}  // namespace gpuqual
