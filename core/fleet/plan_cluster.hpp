#pragma once
// The cluster as `gpuqual plan` sees it: the few fields of Node, Pod and PodDisruptionBudget
// objects that decide where GPUs are and what a drain would evict. Field names follow the
// Kubernetes API reference (core/v1 Node, Pod; policy/v1 PodDisruptionBudget):
// https://kubernetes.io/docs/reference/kubernetes-api/ — the JSON readers are in
// core/fleet/plan_cluster_json.hpp.
#include <map>
#include <string>
#include <vector>

namespace gpuqual {

using Labels = std::map<std::string, std::string>;

// The extended resource the NVIDIA device plugin advertises (k8s-device-plugin README).
inline constexpr const char* kGpuResource = "nvidia.com/gpu";

// One requirement of a label selector (meta/v1 LabelSelectorRequirement, also the shape of a
// node affinity's NodeSelectorRequirement for the operators both share).
struct LabelRequirement {
  enum class Op { in, not_in, exists, does_not_exist };
  std::string key;
  Op op = Op::exists;
  std::vector<std::string> values;
  bool matches(const Labels& labels) const;
};

// meta/v1 LabelSelector: matchLabels AND matchExpressions. A PDB's empty selector selects every
// pod of its namespace (policy/v1); a missing one selects none (`selects_nothing`).
struct LabelSelector {
  Labels match_labels;
  std::vector<LabelRequirement> match_expressions;
  bool selects_nothing = false;
  bool matches(const Labels& labels) const;
};

struct Taint {
  std::string key, value, effect;  // effect: NoSchedule | PreferNoSchedule | NoExecute
};

struct Toleration {
  std::string key, op = "Equal", value, effect;  // op: Equal | Exists; "" key with Exists: every taint
  bool tolerates(const Taint& t) const;
};

struct ClusterNode {
  std::string name;
  Labels labels;
  std::string hardware_class;  // from the GFD labels (hardware_class_from_gfd_labels), same slugs as records
  int gpus = 0;                // status.allocatable["nvidia.com/gpu"]
  bool unschedulable = false;  // spec.unschedulable (cordoned)
  bool ready = true;           // status.conditions[type=Ready].status == "True"
  std::vector<Taint> taints;   // spec.taints
};

struct OwnerRef {
  std::string kind, name;
};

struct ClusterPod {
  std::string ns, name;
  std::string node;   // spec.nodeName; "" = not scheduled
  std::string phase;  // status.phase
  Labels labels, annotations;
  std::vector<OwnerRef> owners;  // metadata.ownerReferences
  int gpus = 0;                  // effective request of nvidia.com/gpu (see pod_gpu_request)
  Labels node_selector;          // spec.nodeSelector
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution: the terms are
  // ORed, the requirements of one term ANDed. Empty: no constraint.
  std::vector<std::vector<LabelRequirement>> required_node_terms;
  std::vector<Toleration> tolerations;

  std::string key() const { return ns + "/" + name; }
  // Succeeded or Failed: nothing to evict.
  bool finished() const { return phase == "Succeeded" || phase == "Failed"; }
  // `kubectl drain --ignore-daemonsets` leaves DaemonSet pods, and mirror (static) pods cannot
  // be evicted through the API: neither moves when a node is drained.
  bool stays_on_drain() const;
  bool owned_by_kind(const std::string& kind) const;
  // Whether the scheduler could put this pod on `node`: nodeSelector, required node affinity,
  // and the NoSchedule/NoExecute taints it does not tolerate.
  bool can_run_on(const ClusterNode& node) const;
};

struct ClusterPdb {
  std::string ns, name;
  LabelSelector selector;
  int disruptions_allowed = 0;  // status.disruptionsAllowed
  std::string key() const { return ns + "/" + name; }
};

struct Cluster {
  std::vector<ClusterNode> nodes;
  std::vector<ClusterPod> pods;
  std::vector<ClusterPdb> pdbs;
};

}  // namespace gpuqual
