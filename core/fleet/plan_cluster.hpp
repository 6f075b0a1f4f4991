#pragma once
// The cluster as `gpuqual plan` sees it: the few fields of Node, Pod and PodDisruptionBudget
// objects that decide where GPUs are and what a drain would evict. Field names follow the
// Kubernetes API reference (core/v1 Node, Pod; policy/v1 PodDisruptionBudget):
// https://kubernetes.io/docs/reference/kubernetes-api/ — the JSON readers are in
// core/fleet/plan_cluster_json.hpp.
#include <optional>
#include <string>
#include <vector>

#include "core/fleet/node_selector.hpp"

namespace gpuqual {

// The extended resource the NVIDIA device plugin advertises (k8s-device-plugin README).
inline constexpr const char* kGpuResource = "nvidia.com/gpu";

// One requirement of a label selector (meta/v1 LabelSelectorRequirement): the shape and rules of
// a node affinity's NodeSelectorRequirement (node_selector.hpp) for the operators both have, so
// one evaluator; a PDB's reader refuses Gt and Lt, which a label selector does not have.
using LabelRequirement = NodeSelectorRequirement;

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
  // status.conditions[type=Ready].status == "True". The reader sets it false for False, Unknown
  // and for a node with no Ready condition at all, which Kubernetes treats as Unknown (the node
  // controller's ConditionUnknown): such a node is no schedulable capacity.
  bool ready = true;
  std::vector<Taint> taints;  // spec.taints
};

struct OwnerRef {
  std::string kind, name;
  bool controller = true;  // ownerReferences[].controller (absent in the API: false)
};

struct ClusterPod {
  std::string ns, name;
  std::string node;   // spec.nodeName; "" = not scheduled
  std::string phase;  // status.phase
  Labels labels, annotations;
  std::vector<OwnerRef> owners;  // metadata.ownerReferences
  int gpus = 0;                  // effective request of nvidia.com/gpu (see pod_gpu_request)
  Labels node_selector;          // spec.nodeSelector
  // spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution (node_selector.hpp:
  // terms ORed, an empty term or no term matching no node). Absent: no constraint.
  std::optional<NodeSelector> required_affinity;
  std::vector<Toleration> tolerations;

  std::string key() const { return ns + "/" + name; }
  // Succeeded or Failed: nothing to evict.
  bool finished() const { return phase == "Succeeded" || phase == "Failed"; }
  // `kubectl drain --ignore-daemonsets` leaves DaemonSet pods, and mirror (static) pods cannot
  // be evicted through the API: neither moves when a node is drained.
  bool stays_on_drain() const;
  // Whether an ownerReference is its controller. `kubectl drain` refuses a pod without one ("cannot
  // delete Pods that declare no controller (use --force to override)"), and nothing would
  // recreate it: a bare pod holds its node.
  bool has_controller() const;
  bool owned_by_kind(const std::string& kind) const;
  // Whether the scheduler could put this pod on `node`: nodeSelector and required node affinity
  // (node_affinity_matches), and the NoSchedule/NoExecute taints it does not tolerate.
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
