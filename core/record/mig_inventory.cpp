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

}  // namespace gpuqual
