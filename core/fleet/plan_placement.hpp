#pragma once
// First-fit placement of evicted GPU pods on the nodes that stay, per hardware class: the first
// node (by name) of the class that the pod may run on and that has its GPUs free, among the
// upgraded nodes first (a pod put there does not move again), then among the others. Nodes are
// kept in buckets by free GPUs, each bucket ordered by node index, so a pod asking for r GPUs
// looks at the first node of each bucket >= r instead of every node: O(max GPUs per node x
// log nodes) per pod for the usual pod whose node selector every node of its class matches
// (docs/performance.md has the 5,000-node figure).
#include <array>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/fleet/plan_cluster.hpp"

namespace gpuqual {

class PlacementIndex {
 public:
  explicit PlacementIndex(const std::vector<ClusterNode>& nodes)
      : nodes_(nodes), free_(nodes.size(), -1), upgraded_(nodes.size(), false) {}
  // Node `i` takes pods again with `free_gpus` free; `remove` takes it out (its wave).
  void insert(std::size_t i, int free_gpus, bool upgraded);
  void remove(std::size_t i);
  // The lowest-index node of `hardware_class` with `pod.gpus` free that the pod may run on, or
  // -1; on success its free GPUs go down by the request.
  long place(const ClusterPod& pod, const std::string& hardware_class);

 private:
  const std::vector<ClusterNode>& nodes_;
  std::vector<int> free_;  // -1: not in the index
  std::vector<bool> upgraded_;
  // class → [not upgraded, upgraded] → free GPUs → nodes
  std::unordered_map<std::string, std::array<std::vector<std::set<std::size_t>>, 2>> buckets_;
};

}  // namespace gpuqual
