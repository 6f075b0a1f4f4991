#pragma once
// The pre-start check of a container image against the host driver: read the image's
// CUDA_VERSION and NVIDIA_REQUIRE_* variables (Config.Env, without running it) and evaluate
// them the way the NVIDIA Container Toolkit would (reference/cuda-image-env.md §4), so that
// an image that needs a newer driver fails early, with the reason, instead of failing later
// inside the process (under CDI the toolkit does not check at all).
#include <string>
#include <vector>

#include "core/status.hpp"
#include "probes/probe_run.hpp"

namespace gpuqual::probes {

// What the image declares.
struct ImageCudaEnv {
  std::string cuda_version;                 // CUDA_VERSION, "" when absent
  std::vector<std::string> requirements;    // every NVIDIA_REQUIRE_* value except _JETPACK
  std::string disable_require;              // NVIDIA_DISABLE_REQUIRE as written, "" when absent
  bool misspelt_disable = false;            // NVIDIA_DISABLE_REQUIRES (no effect in the toolkit)
};
ImageCudaEnv read_image_cuda_env(const std::vector<std::string>& env);

struct ImageCompatVerdict {
  // pass: the driver satisfies the image; fail: it does not (summary says why);
  // skip: nothing to evaluate (no CUDA image, no driver, requirement disabled).
  Status status = Status::skip;
  std::string summary;
};
ImageCompatVerdict check_image_compat(const std::vector<std::string>& env, const HostFacts& host);

}  // namespace gpuqual::probes
