#pragma once
// The pre-start check of a container image against the host driver: the image's CUDA_VERSION
// and NVIDIA_REQUIRE_* variables (Config.Env, read without running it) judged with the
// compatibility rules of the `compat` preflight (core/compat/cuda_compat_image.hpp), so an image that
// needs a newer driver fails early, with the reason, instead of failing later inside the
// process (under CDI the NVIDIA Container Toolkit does not check the requirement at all).
#include <memory>
#include <string>
#include <vector>

#include "core/compat/cuda_compat.hpp"
#include "core/compat/cuda_compat_require.hpp"
#include "core/record/record.hpp"
#include "core/record/status.hpp"

namespace gpuqual::probes {

// What the preflight knows about the node (device/node/compat_facts.hpp collects it).
struct CompatInputs {
  std::shared_ptr<const CudaCompatTable> table;  // null: not loaded (`problem` says why)
  std::string problem;
  HostDriver host;
  std::vector<RequireFacts> gpus;  // the GPUs as NVIDIA_REQUIRE_* sees them
};

struct ImageCompatVerdict {
  // pass: the driver satisfies the image; warn: only with a limited feature set (minor-version)
  // or forward compatibility; fail: it does not; skip: nothing to judge (not a CUDA image, no
  // driver, no table).
  Status status = Status::skip;
  std::string summary;
  std::vector<Finding> findings;  // compat.* findings of the rules
};

ImageCompatVerdict check_image_compat(const std::string& image, const std::vector<std::string>& env,
                                      const CompatInputs& inputs);

}  // namespace gpuqual::probes
