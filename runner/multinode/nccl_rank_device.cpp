#include "runner/multinode/nccl_rank_device.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace gpuqual {
namespace {

// The entries CUDA_VISIBLE_DEVICES names ("0", "GPU-<uuid>", "MIG-<uuid>", separated by commas).
int visible_entries(const std::string& value) {
  if (value.find_first_not_of(" \t") == std::string::npos) return 0;
  return static_cast<int>(std::count(value.begin(), value.end(), ',')) + 1;
}

}  // namespace

RankDevice choose_rank_device(int local_rank, int local_size, int visible,
                              const std::optional<std::string>& cuda_visible_devices) {
  RankDevice r;
  if (local_rank < 0 || visible <= 0) {
    r.why =
        fmt::format("node-local rank {}, {} CUDA devices visible: no GPU for this rank", local_rank, visible);
    return r;
  }
  if (visible >= local_size && local_rank < visible) {
    r.device = local_rank;
    r.why = fmt::format("device {}: the node-local rank ({} devices visible to {} ranks on this node)",
                        local_rank, visible, local_size);
    return r;
  }
  if (visible == 1 && cuda_visible_devices && visible_entries(*cuda_visible_devices) == 1) {
    r.device = 0;
    r.why = fmt::format("device 0: CUDA_VISIBLE_DEVICES={} gives this rank one GPU (node-local rank {})",
                        *cuda_visible_devices, local_rank);
    return r;
  }
  r.why = fmt::format(
      "node-local rank {} of {} but CUDA sees {} GPU(s) here{}: start one rank per GPU, or give each rank "
      "its own GPU with CUDA_VISIBLE_DEVICES",
      local_rank, local_size, visible,
      cuda_visible_devices ? " (CUDA_VISIBLE_DEVICES=" + *cuda_visible_devices + ")" : "");
  return r;
}

}  // namespace gpuqual
