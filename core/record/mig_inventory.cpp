#include "core/record/mig_inventory.hpp"

#include <map>

namespace gpuqual {

std::vector<std::pair<std::string, int>> mig_device_counts(const MigState& mig) {
  std::map<std::string, int> counts;
  for (const MigGpuInstance& gi : mig.gpu_instances) {
    for (const MigComputeInstance& ci : gi.compute_instances) ++counts[ci.profile];
  }
  return {counts.begin(), counts.end()};
}

std::optional<MigDeviceRef> find_mig_device(const MigState& mig, std::string_view uuid) {
  for (const MigGpuInstance& gi : mig.gpu_instances) {
    for (const MigComputeInstance& ci : gi.compute_instances) {
      if (ci.uuid == uuid) return MigDeviceRef{&gi, &ci};
    }
  }
  return std::nullopt;
}

std::string mig_slice_place(const MigState& mig, std::string_view uuid) {
  const auto dev = find_mig_device(mig, uuid);
  if (!dev) return std::string(uuid);
  return dev->gpu_instance->profile + "@" + std::to_string(dev->gpu_instance->placement_start) + "/ci" +
         std::to_string(dev->compute_instance->id);
}

}  // namespace gpuqual
