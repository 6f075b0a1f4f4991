#pragma once
// Judging a container image's CUDA requirement against the node without starting it: the image
// environment (docker image inspect → Config.Env) carries CUDA_VERSION and NVIDIA_REQUIRE_CUDA,
// which the NVIDIA Container Toolkit evaluates at container creation (legacy mode) — and, as its
// sources read (NVIDIA/nvidia-container-toolkit: checkRequirements is called only from the CSV
// modifier), apparently not in CDI mode, where a too-new image
// starts and fails at its first CUDA call. So gpuqual evaluates both itself.
#include <string>
#include <utility>
#include <vector>

#include "core/compat/cuda_compat.hpp"
#include "core/compat/cuda_compat_require.hpp"
#include "core/record/record.hpp"

namespace gpuqual {

struct ImageCudaEnv {
  std::string cuda_version;  // CUDA_VERSION ("12.4.1"); "" when absent
  // Every NVIDIA_REQUIRE_* variable except NVIDIA_REQUIRE_JETPACK, as (name, value); ANDed.
  std::vector<std::pair<std::string, std::string>> requirements;
  bool legacy = false;            // CUDA_VERSION without NVIDIA_REQUIRE_CUDA: cuda>=X.Y synthesized
  bool require_disabled = false;  // NVIDIA_DISABLE_REQUIRE true by Go's strconv.ParseBool
  bool misspelt_disable = false;  // NVIDIA_DISABLE_REQUIRES set: has no effect
};

// Reads "NAME=value" lines as docker/podman inspect print Config.Env.
ImageCudaEnv parse_image_cuda_env(const std::vector<std::string>& env);

struct ImageCompat {
  Status status = Status::error;
  std::string rule;               // which rule decided, in words
  std::string reason;             // one line
  std::vector<Finding> findings;  // compat.* codes, detail naming the image
};

// `image` names it in findings; `gpus` are the node's GPUs as the requirement sees them (empty:
// no GPU selected). Throws InputError (origin "image <name> env <VAR>") for a malformed
// requirement or CUDA_VERSION.
ImageCompat judge_image(const std::string& image, const ImageCudaEnv& env, const CudaCompatTable& table,
                        const HostDriver& host, const std::vector<RequireFacts>& gpus);

// gpuqual's own CUDA runtime on the host driver (the first thing `compat` judges).
ImageCompat judge_runtime(const DottedVersion& runtime, const CudaCompatTable& table, const HostDriver& host,
                          bool forward_compat_available);

}  // namespace gpuqual
