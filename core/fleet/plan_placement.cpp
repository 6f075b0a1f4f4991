#include "core/fleet/plan_placement.hpp"

#include <limits>

namespace gpuqual {

void PlacementIndex::insert(std::size_t i, int free_gpus, bool upgraded) {
  if (free_[i] >= 0) remove(i);
  if (free_gpus < 0) free_gpus = 0;
  auto& b = buckets_[nodes_[i].hardware_class][upgraded ? 1 : 0];
  if (b.size() <= static_cast<std::size_t>(free_gpus)) b.resize(static_cast<std::size_t>(free_gpus) + 1);
  b[static_cast<std::size_t>(free_gpus)].insert(i);
  free_[i] = free_gpus;
  upgraded_[i] = upgraded;
}

void PlacementIndex::remove(std::size_t i) {
  if (free_[i] < 0) return;
  buckets_[nodes_[i].hardware_class][upgraded_[i] ? 1 : 0][static_cast<std::size_t>(free_[i])].erase(i);
  free_[i] = -1;
}

long PlacementIndex::place(const ClusterPod& pod, const std::string& hardware_class) {
  auto it = buckets_.find(hardware_class);
  if (it == buckets_.end()) return -1;
  for (int tier : {1, 0}) {
    const auto& buckets = it->second[static_cast<std::size_t>(tier)];
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (std::size_t f = static_cast<std::size_t>(pod.gpus); f < buckets.size(); ++f) {
      for (std::size_t i : buckets[f]) {
        if (i >= best) break;  // a lower-index fit was already found in another bucket
        if (pod.can_run_on(nodes_[i])) {
          best = i;
          break;
        }
      }
    }
    if (best == std::numeric_limits<std::size_t>::max()) continue;
    insert(best, free_[best] - pod.gpus, upgraded_[best]);
    return static_cast<long>(best);
  }
  return -1;
}

}  // namespace gpuqual
