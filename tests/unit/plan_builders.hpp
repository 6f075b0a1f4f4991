#pragma once
// Small clusters built by hand for the planner's tests (core/fleet/plan.hpp).
#include <string>
#include <utility>

#include "core/fleet/plan_cluster.hpp"

namespace gpuqual::testing {

// A running pod of `owner` kind on `node` that holds `gpus` GPUs.
inline ClusterPod pod(const std::string& name, const std::string& node, int gpus, Labels labels = {},
                      const std::string& owner = "ReplicaSet") {
  ClusterPod p;
  p.ns = "ns";
  p.name = name;
  p.node = node;
  p.gpus = gpus;
  p.phase = "Running";
  p.labels = std::move(labels);
  p.owners = {{owner, name + "-owner"}};
  return p;
}

}  // namespace gpuqual::testing
