#pragma once
// The rollout policy of `gpuqual plan` (`gpuqual.plan/v1`, YAML; format: docs/plan.md): per
// hardware class (the slug derived from the GFD labels, core/record/hardware_class.hpp) the GPUs that
// must stay schedulable, the most nodes out at once and the canary size; how training work is
// recognised and what it needs before its node may be drained; the nodes left out.
//
//   schema: gpuqual.plan/v1
//   classes:
//     h100-sxm-80gb: {min_schedulable_gpus: 48, max_nodes_out: 2, canary: 1}
//     l40s-pcie-48gb: {min_schedulable_gpus: "75%", max_nodes_out: 4}
//   training: {owner_kinds: [Job, MPIJob], labels: {team: research}, before_drain: checkpoint}
//   exclude_nodes: [gpu-node-13]
//   rack_label: nvidia.com/gpu.clique     # the default: racks go whole (core/record/rack.hpp)
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/fleet/plan_cluster.hpp"
#include "core/record/rack.hpp"

namespace gpuqual {

inline constexpr const char* kPlanPolicySchema = "gpuqual.plan/v1";

struct ClassPolicy {
  std::optional<int> min_gpus;    // absolute floor of schedulable GPUs
  std::optional<double> min_pct;  // or: percent of the class's GPUs (all its nodes), rounded up
  int max_nodes_out = 1;
  int canary = 1;
  // The floor in GPUs for a class of `class_gpus` GPUs in all.
  int floor_gpus(int class_gpus) const;
  std::string floor_text() const;  // "48" or "75%"
};

struct TrainingPolicy {
  enum class BeforeDrain { checkpoint, done };
  // A pod is training work when a direct owner has one of these kinds (batch/v1 Job, JobSet,
  // Kubeflow MPIJob/PyTorchJob/TFJob) or it carries one of `labels` with that value.
  std::vector<std::string> owner_kinds{"Job", "JobSet", "MPIJob", "PyTorchJob", "TFJob"};
  Labels labels;
  // checkpoint: its node may go once the pod carries `checkpoint_annotation: "true"`;
  // done: never while the pod runs.
  BeforeDrain before_drain = BeforeDrain::checkpoint;
  std::string checkpoint_annotation = "gpuqual.io/checkpointed";

  bool is_training(const ClusterPod& pod) const;
  // An unfinished training pod that may not be evicted yet (no checkpoint, or "done" mode).
  bool blocks_drain(const ClusterPod& pod) const;
};

struct PlanPolicy {
  std::string schema = kPlanPolicySchema;
  std::map<std::string, ClassPolicy> classes;  // slug → policy
  TrainingPolicy training;
  std::set<std::string> exclude_nodes;
  // The node label that names a node's rack (a multi-node NVLink domain): the nodes of one rack
  // go in one wave or wait together, and the floor counts their GPUs as lost together.
  std::string rack_label = kCliqueLabel;
  std::string origin;
};

// Strict loader (yaml-cpp through core/base/yaml_tree): unknown keys, wrong types, a class
// slug that is not one, canary > max_nodes_out: InputError "file: line N: $.path: problem" (exit 3).
PlanPolicy parse_plan_policy_yaml(const std::string& text, const std::string& origin);
PlanPolicy load_plan_policy(const std::string& path);

}  // namespace gpuqual
