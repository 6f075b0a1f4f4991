#pragma once
// The Kubernetes Node object's own report of the node, from a JSON file in the API's shape
// (`kubectl get node NAME -o json`, or the subset containers/bin/gpuqual-node-labels writes):
// status.nodeInfo (kubelet, container runtime, kernel, OS image) and the nvidia.com/gpu
// capacity and allocatable the device plugin advertises. The pod cannot read its Node itself
// without RBAC, so the node-labels init container fetches it (read-only, its own node).
#include <string>

#include "core/record/stack_inventory.hpp"

namespace gpuqual {

inline constexpr const char* kNodeFileEnvVar = "GPUQUAL_NODE_FILE";

// Fills the k8s_* facts of `stack`. `node_file` empty: every fact null with the reason "no Node
// object given". A file that is not JSON or not a Node throws InputError (exit 3).
void read_k8s_node_info(StackInventory& stack, const std::string& node_file);

}  // namespace gpuqual
