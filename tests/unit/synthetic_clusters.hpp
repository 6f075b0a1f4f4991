#pragma once
// A generated cluster (bench/synthetic_cluster.hpp) read through the real Kubernetes JSON
// readers, as `plan` and `revalidate` read `kubectl get ... -o json`: the property tests of both.
#include "bench/synthetic_cluster.hpp"
#include "core/fleet/plan_cluster_json.hpp"

namespace gpuqual::testing {

inline Cluster cluster_for(unsigned seed, int gpu_nodes) {
  bench::ClusterShape shape;
  shape.seed = seed;
  shape.gpu_nodes = gpu_nodes;
  const bench::SyntheticCluster s = bench::synthetic_cluster(shape);
  return {nodes_from_json(s.nodes, "nodes.json"), pods_from_json(s.pods, "pods.json"),
          pdbs_from_json(s.pdbs, "pdbs.json")};
}

}  // namespace gpuqual::testing
