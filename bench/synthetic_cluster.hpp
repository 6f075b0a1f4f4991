#pragma once
// Generated clusters for the planner's property tests and its benchmark, as the Kubernetes API
// returns them (`kubectl get nodes|pods -A|pdb -A -o json`: a List of objects with the API
// reference's field names), so the real readers parse them. GPU nodes of several classes with
// their GFD labels (values from tests/data/gfd/), CPU nodes, serving Deployments with PDBs,
// DaemonSet pods, training pods (PyTorchJob, Job) with and without a checkpoint annotation,
// finished pods, cordoned and NotReady nodes. Deterministic for a seed.
#include <algorithm>
#include <random>
#include <string>

#include <nlohmann/json.hpp>

namespace gpuqual::bench {

struct ClusterShape {
  unsigned seed = 1;
  int gpu_nodes = 300;
  int cpu_nodes = 10;
  int pods_per_node = 6;         // on average, besides the DaemonSet pod
  double training_share = 0.15;  // of GPU pods
  double checkpointed = 0.5;     // of training pods
  double cordoned = 0.03;
  double not_ready = 0.02;
  int apps = 40;                // serving Deployments, each with a PDB most of the time
  int zero_budget_every = 9;    // every n-th app's PDB allows no disruption (0: none)
  bool overlapping_pdb = true;  // a PDB over all frontends of one namespace (pods under two PDBs)
};

struct SyntheticCluster {
  nlohmann::json nodes, pods, pdbs;
};

struct SyntheticClass {
  const char* product;
  const char* memory_mib;
  int gpus;
};

// GFD label values as in tests/data/gfd/ and docs/hardware-class.md.
inline constexpr SyntheticClass kSyntheticClasses[] = {
    {"NVIDIA-H100-80GB-HBM3", "81559", 8},
    {"NVIDIA-A100-SXM4-80GB", "81920", 8},
    {"NVIDIA-L40S", "46068", 4},
    {"NVIDIA-H200", "143771", 8},
};

inline SyntheticCluster synthetic_cluster(const ClusterShape& s) {
  using nlohmann::json;
  std::mt19937 rng(s.seed);
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto pick = [&](int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); };
  auto list = [](json items) {
    return json{{"apiVersion", "v1"},
                {"kind", "List"},
                {"metadata", {{"resourceVersion", ""}}},
                {"items", std::move(items)}};
  };
  json nodes = json::array(), pods = json::array(), pdbs = json::array();
  struct NodeInfo {
    std::string name;
    int cls;
    int free;
  };
  std::vector<NodeInfo> gpu_nodes;
  const int nclasses = static_cast<int>(std::size(kSyntheticClasses));
  for (int i = 0; i < s.gpu_nodes + s.cpu_nodes; ++i) {
    const bool gpu = i < s.gpu_nodes;
    const int cls = gpu ? i % nclasses : -1;
    const std::string name =
        gpu ? "gpu-" + std::to_string(cls) + "-" + std::to_string(i) : "cpu-" + std::to_string(i);
    json labels = {{"kubernetes.io/hostname", name}, {"kubernetes.io/os", "linux"}};
    json alloc = {{"cpu", "95500m"}, {"memory", "1031000Ki"}, {"pods", "110"}};
    json taints = json::array();
    if (gpu) {
      const auto& c = kSyntheticClasses[cls];
      labels["nvidia.com/gpu.product"] = c.product;
      labels["nvidia.com/gpu.memory"] = c.memory_mib;
      labels["nvidia.com/gpu.count"] = std::to_string(c.gpus);
      labels["pool"] = "pool-" + std::to_string(pick(3));
      alloc["nvidia.com/gpu"] = std::to_string(c.gpus);
      taints.push_back({{"key", "nvidia.com/gpu"}, {"value", "present"}, {"effect", "NoSchedule"}});
      gpu_nodes.push_back({name, cls, c.gpus});
    }
    json spec = {{"taints", taints}};
    if (chance(s.cordoned)) spec["unschedulable"] = true;
    const std::string ready = chance(s.not_ready) ? "False" : "True";
    nodes.push_back({{"apiVersion", "v1"},
                     {"kind", "Node"},
                     {"metadata", {{"name", name}, {"labels", labels}, {"uid", "uid-" + name}}},
                     {"spec", spec},
                     {"status",
                      {{"capacity", alloc},
                       {"allocatable", alloc},
                       {"conditions", json::array({{{"type", "MemoryPressure"}, {"status", "False"}},
                                                   {{"type", "Ready"}, {"status", ready}}})}}}});
  }
  auto make_pod = [&](const std::string& ns, const std::string& name, const std::string& node,
                      const std::string& owner_kind, const std::string& owner, json labels, int gpus,
                      const std::string& phase) {
    json c = {{"name", "main"}, {"image", "registry.example.com/app:1"}};
    if (gpus > 0)
      c["resources"] = {{"requests", {{"cpu", "4"}, {"nvidia.com/gpu", std::to_string(gpus)}}},
                        {"limits", {{"nvidia.com/gpu", std::to_string(gpus)}}}};
    else
      c["resources"] = {{"requests", {{"cpu", "100m"}}}};
    json spec = {
        {"nodeName", node},
        {"containers", json::array({c})},
        {"tolerations",
         json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})}};
    json meta = {{"name", name},
                 {"namespace", ns},
                 {"labels", labels},
                 {"ownerReferences", json::array({{{"apiVersion", "v1"},
                                                   {"kind", owner_kind},
                                                   {"name", owner},
                                                   {"controller", true},
                                                   {"uid", "u-" + owner}}})}};
    return json{{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", meta},
                {"spec", spec},
                {"status", {{"phase", phase}}}};
  };
  int serial = 0;
  for (const NodeInfo& n : gpu_nodes) {
    pods.push_back(make_pod("gpu-operator", "nvidia-device-plugin-" + n.name, n.name, "DaemonSet",
                            "nvidia-device-plugin", {{"app", "nvidia-device-plugin"}}, 0, "Running"));
  }
  const int total = s.pods_per_node * s.gpu_nodes;
  for (int k = 0; k < total; ++k) {
    NodeInfo& n = gpu_nodes[static_cast<std::size_t>(pick(static_cast<int>(gpu_nodes.size())))];
    const std::string id = std::to_string(serial++);
    if (n.free > 0 && chance(s.training_share)) {
      const int gpus = n.free;  // a training worker takes what is left
      json labels = {{"training.kubeflow.org/job-name", "job-" + std::to_string(k % 17)}};
      json p = chance(0.5) ? make_pod("research", "train-" + id, n.name, "PyTorchJob",
                                      "job-" + std::to_string(k % 17), labels, gpus, "Running")
                           : make_pod("batch", "batch-" + id, n.name, "Job", "batch-" + std::to_string(k % 5),
                                      labels, gpus, "Running");
      if (chance(s.checkpointed)) p["metadata"]["annotations"] = {{"gpuqual.io/checkpointed", "true"}};
      n.free -= gpus;
      pods.push_back(std::move(p));
      continue;
    }
    const int app = pick(s.apps);
    const int want = std::min(n.free, 1 << pick(3));  // 1, 2 or 4 GPUs, or none when the node is full
    const std::string phase = chance(0.05) ? "Succeeded" : (chance(0.05) ? "Pending" : "Running");
    json labels = {{"app", "app-" + std::to_string(app)}, {"tier", app % 3 == 0 ? "frontend" : "model"}};
    json p = make_pod("serve-" + std::to_string(app % 7), "app-" + std::to_string(app) + "-" + id, n.name,
                      "ReplicaSet", "app-" + std::to_string(app) + "-rs", labels, want, phase);
    if (want > 0 && chance(0.5)) {
      // Pinned to its class by the GFD product label, as a real serving Deployment is.
      p["spec"]["nodeSelector"] = {{"nvidia.com/gpu.product", kSyntheticClasses[n.cls].product}};
    }
    if (phase != "Succeeded") n.free -= want;
    pods.push_back(std::move(p));
  }
  for (int app = 0; app < s.apps; ++app) {
    if (app % 5 == 4) continue;  // some apps have no PDB
    json selector = {{"matchLabels", {{"app", "app-" + std::to_string(app)}}}};
    if (app % 11 == 3)
      selector = {
          {"matchExpressions",
           json::array({{{"key", "app"}, {"operator", "In"}, {"values", {"app-" + std::to_string(app)}}}})}};
    const int allowed = s.zero_budget_every > 0 && app % s.zero_budget_every == 0 ? 0 : 1 + pick(3);
    for (int ns = 0; ns < 7; ++ns) {
      if (app % 7 != ns) continue;
      pdbs.push_back(
          {{"apiVersion", "policy/v1"},
           {"kind", "PodDisruptionBudget"},
           {"metadata",
            {{"name", "pdb-app-" + std::to_string(app)}, {"namespace", "serve-" + std::to_string(ns)}}},
           {"spec", {{"minAvailable", 1}, {"selector", selector}}},
           {"status",
            {{"disruptionsAllowed", allowed},
             {"currentHealthy", 3},
             {"desiredHealthy", 1},
             {"expectedPods", 3}}}});
    }
  }
  // One PDB over every frontend of a namespace: frontends of that namespace with their own PDB
  // are then under two (the eviction API refuses them).
  if (s.overlapping_pdb) {
    pdbs.push_back(
        {{"apiVersion", "policy/v1"},
         {"kind", "PodDisruptionBudget"},
         {"metadata", {{"name", "frontends"}, {"namespace", "serve-3"}}},
         {"spec", {{"maxUnavailable", 2}, {"selector", {{"matchLabels", {{"tier", "frontend"}}}}}}},
         {"status", {{"disruptionsAllowed", 2}}}});
  }
  return {list(std::move(nodes)), list(std::move(pods)), list(std::move(pdbs))};
}

}  // namespace gpuqual::bench
