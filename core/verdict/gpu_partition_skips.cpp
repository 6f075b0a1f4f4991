#include "core/verdict/gpu_partition_skips.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <functional>

#include "core/rules/gpu_sharing.hpp"
#include "core/rules/mig_mode.hpp"

namespace gpuqual {

namespace {

bool in_mig_mode(const GpuInfo& g) { return g.mig_enabled == true || (g.mig && g.mig->current); }
bool is_vgpu(const GpuInfo& g) { return g.virtualization_mode == "vgpu"; }

// Checks between GPUs: they run among the GPUs a partition code does not cover.
bool between_gpus(std::string_view check) { return check == "p2p" || check == "nccl_allreduce"; }

// The code of a GPU property (`has`: in MIG mode, a vGPU), judged for its unit: the one GPU, or
// the whole check, which needs a GPU that has it and, between GPUs, fewer than two that do not.
std::optional<std::string> unit_refusal(const RunRecord& r, std::string_view code,
                                        const std::optional<int>& gpu, std::string_view check,
                                        const std::function<bool(const GpuInfo&)>& has,
                                        std::string_view what) {
  if (gpu) {
    auto g = std::find_if(r.gpus.begin(), r.gpus.end(), [&](const GpuInfo& x) { return x.index == *gpu; });
    if (g == r.gpus.end()) return fmt::format("{}, but the record has no GPU {}", code, *gpu);
    if (!has(*g)) return fmt::format("{}, but GPU {} is not {}", code, *gpu, what);
    return std::nullopt;
  }
  if (std::none_of(r.gpus.begin(), r.gpus.end(), has))
    return fmt::format("{}, but no GPU of the record is {}", code, what);
  const auto others = std::count_if(r.gpus.begin(), r.gpus.end(), [&](const GpuInfo& g) { return !has(g); });
  if (between_gpus(check) && others >= 2) {
    return fmt::format("{}, but {} GPUs of the record are not {}: {} runs among them", code, others, what,
                       check);
  }
  return std::nullopt;
}

}  // namespace

bool is_gpu_partition_code(std::string_view code) {
  return code == "mig_instance" || code == "mig_disabled" || code == "no_gpu_sharing" || code == "vgpu_guest";
}

std::optional<std::string> gpu_partition_refusal(const RunRecord& r, std::string_view code,
                                                 const std::optional<int>& gpu, std::string_view check) {
  if (code == "mig_instance") return unit_refusal(r, code, gpu, check, in_mig_mode, "in MIG mode");
  if (code == "vgpu_guest") return unit_refusal(r, code, gpu, check, is_vgpu, "a vGPU");
  if (code == "mig_disabled" && !no_gpu_uses_mig(r.gpus)) {
    return std::string(
        "mig_disabled, but the record has a GPU in MIG mode (now or pending) or one whose MIG "
        "mode NVML did not read");
  }
  if (code == "no_gpu_sharing" && sharing_in_play(r.node.k8s_labels, std::nullopt)) {
    return fmt::format("no_gpu_sharing, but the Node's labels share the GPUs ({}, {})", kReplicasLabel,
                       kSharingStrategyLabel);
  }
  return std::nullopt;
}

}  // namespace gpuqual
