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
// Read with simdjson (simdjson_fields.hpp): `kubectl get pods -A -o json` of 100,000 pods is
// tens of MB, which nlohmann's DOM took seconds to build.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/base/json_input.hpp"
#include "core/fleet/plan_cluster.hpp"

namespace gpuqual {

// Parses one document's text (read_json_file's limits and messages: size, emptiness, syntax,
// nesting) and reads its items. `origin` names the document in errors.
std::vector<ClusterNode> read_nodes(std::string text, const std::string& origin, const JsonLimits& limits);
std::vector<ClusterPod> read_pods(std::string text, const std::string& origin, const JsonLimits& limits);
std::vector<ClusterPdb> read_pdbs(std::string text, const std::string& origin, const JsonLimits& limits);

// The same for a document already parsed by nlohmann (tests, generated clusters): it is
// serialised and read by the functions above, so there is one reader.
std::vector<ClusterNode> nodes_from_json(const nlohmann::json& doc, const std::string& file);
std::vector<ClusterPod> pods_from_json(const nlohmann::json& doc, const std::string& file);
std::vector<ClusterPdb> pdbs_from_json(const nlohmann::json& doc, const std::string& file);

}  // namespace gpuqual
