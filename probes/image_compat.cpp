#include "probes/image_compat.hpp"

#include <fmt/format.h>

namespace gpuqual::probes {

namespace {

// Go's strconv.ParseBool "true" spellings: what the toolkit accepts for NVIDIA_DISABLE_REQUIRE.
bool go_parse_bool_true(const std::string& v) {
  return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True";
}

}  // namespace

ImageCudaEnv read_image_cuda_env(const std::vector<std::string>& env) {
  ImageCudaEnv out;
  for (const auto& kv : env) {
    const std::size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    const std::string value = kv.substr(eq + 1);
    if (key == "CUDA_VERSION") {
      out.cuda_version = value;
    } else if (key == "NVIDIA_DISABLE_REQUIRE") {
      out.disable_require = value;
    } else if (key == "NVIDIA_DISABLE_REQUIRES") {
      out.misspelt_disable = true;
    } else if (key.rfind("NVIDIA_REQUIRE_", 0) == 0 && key != "NVIDIA_REQUIRE_JETPACK") {
      out.requirements.push_back(value);
    }
  }
  return out;
}

ImageCompatVerdict check_image_compat(const std::vector<std::string>& env, const HostFacts& host) {
  const ImageCudaEnv img = read_image_cuda_env(env);
  ImageCompatVerdict v;
  if (img.cuda_version.empty() && img.requirements.empty()) {
    v.summary = "image declares no CUDA requirement";
    return v;
  }
  if (!img.disable_require.empty() && go_parse_bool_true(img.disable_require)) {
    v.summary = fmt::format("CUDA requirement disabled by NVIDIA_DISABLE_REQUIRE={}", img.disable_require);
    return v;
  }
  if (host.driver_version.empty() && host.cuda_driver_version.empty()) {
    v.summary = "no NVIDIA driver on this node: CUDA requirement not evaluated";
    return v;
  }
  v.summary = "CUDA requirement not evaluated (compatibility rules not in this build)";
  return v;
}

}  // namespace gpuqual::probes
