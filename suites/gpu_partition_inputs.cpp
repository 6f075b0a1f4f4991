#include "suites/gpu_partition_inputs.hpp"

#include <cstdlib>
#include <filesystem>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_lookup.hpp"
#include "core/rules/mig_layout.hpp"
#include "device/host/k8s_node_info.hpp"

namespace gpuqual {

std::optional<std::map<std::string, std::int64_t>> read_node_capacity(const std::string& path) {
  std::string file = path;
  if (file.empty()) {
    if (const char* env = std::getenv(kNodeFileEnvVar)) file = env;
  }
  if (file.empty()) return std::nullopt;
  return nvidia_capacity_from_node(read_json_file(file), file);
}

std::optional<std::string> read_optional_file(const std::string& path, bool required) {
  if (path.empty()) return std::nullopt;
  std::error_code ec;
  if (!required && !std::filesystem::exists(path, ec)) return std::nullopt;
  return read_text_file(path, 1u << 20);
}

std::optional<CheckResult> partition_skip(const std::string& check, const CheckContext& ctx,
                                          bool vgpu_applies) {
  for (int i : ctx.gpus) {
    const GpuInfo* g = find_gpu(ctx.node_gpus, i);
    if (g && g->mig && g->mig->current) {
      return unmeasurable(check, Status::skip,
                          "GPU " + std::to_string(i) + " (" + g->uuid +
                              ") is in MIG mode: peer copies and NCCL do not run between MIG devices",
                          "mig_instance");
    }
  }
  if (!vgpu_applies) return std::nullopt;
  for (int i : ctx.gpus) {
    const GpuInfo* g = find_gpu(ctx.node_gpus, i);
    if (g && g->virtualization_mode == "vgpu") {
      return unmeasurable(check, Status::skip,
                          "GPU " + std::to_string(i) +
                              " is a vGPU: peer-to-peer copies between vGPUs are not "
                              "provided",
                          "vgpu_guest");
    }
  }
  return std::nullopt;
}

}  // namespace gpuqual
