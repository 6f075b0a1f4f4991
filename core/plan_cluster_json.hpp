#pragma once
// Reading the cluster from what the Kubernetes API returns: `kubectl get nodes -o json`,
// `kubectl get pods -A -o json`, `kubectl get pdb -A -o json` (a `List` whose items carry
// kind/apiVersion) or the API's own NodeList/PodList/PodDisruptionBudgetList (items without
// them), or one object. Only the fields the planner needs are read, by their API names
// (kubernetes.io/docs/reference/kubernetes-api/: Node status.allocatable, spec.unschedulable,
// spec.taints, status.conditions; Pod spec.nodeName, spec.containers[].resources,
// spec.initContainers[], spec.nodeSelector, spec.affinity.nodeAffinity, spec.tolerations,
// metadata.ownerReferences, status.phase; PodDisruptionBudget spec.selector,
// status.disruptionsAllowed). Every other field is left alone, as the API adds fields over
// releases; a field the planner reads with the wrong type is an InputError naming the file and
// the JSON path (exit 3).
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/plan_cluster.hpp"

namespace gpuqual {

std::vector<ClusterNode> nodes_from_json(const nlohmann::json& doc, const std::string& file);
std::vector<ClusterPod> pods_from_json(const nlohmann::json& doc, const std::string& file);
std::vector<ClusterPdb> pdbs_from_json(const nlohmann::json& doc, const std::string& file);

// A quantity of whole GPUs: "8" (the API's canonical form for an integer quantity), or a JSON
// integer in a hand-written file. Anything else (fractions, "500m", "1Ki") is an InputError:
// an extended resource is a whole number (Kubernetes "Extended resources").
int gpu_quantity(const nlohmann::json& v, const std::string& file, const std::string& where);

}  // namespace gpuqual
