#include "probes/container/image_compat.hpp"

#include <fmt/format.h>

#include "core/base/input_error.hpp"
#include "core/compat/cuda_compat_image.hpp"

namespace gpuqual::probes {

ImageCompatVerdict check_image_compat(const std::string& image, const std::vector<std::string>& env,
                                      const CompatInputs& inputs) {
  ImageCompatVerdict v;
  const ImageCudaEnv cuda_env = parse_image_cuda_env(env);
  if (cuda_env.cuda_version.empty() && cuda_env.requirements.empty()) {
    v.summary = "image declares no CUDA requirement";
    return v;
  }
  if (!inputs.table) {
    v.summary = fmt::format("CUDA requirement not evaluated: {}", inputs.problem);
    return v;
  }
  try {
    ImageCompat ic = judge_image(image, cuda_env, *inputs.table, inputs.host, inputs.gpus);
    v.status = ic.status;
    v.summary = ic.reason;
    v.findings = std::move(ic.findings);
  } catch (const InputError& e) {
    // The toolkit rejects such an image too ("invalid expression"): the image is wrong.
    v.status = Status::fail;
    v.summary = fmt::format("image {} has a malformed CUDA requirement: {}", image, e.what());
    v.findings.push_back(
        Finding{.code = "compat.require_malformed", .severity = Severity::fail, .detail = v.summary});
  }
  return v;
}

}  // namespace gpuqual::probes
