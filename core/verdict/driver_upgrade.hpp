#pragma once
// The NVIDIA GPU Operator's driver upgrade, as node labels (docs/kubernetes.md, "The GPU
// Operator's driver upgrade"). Its upgrade controller (NVIDIA k8s-operator-libs, pkg/upgrade)
// walks each node through the label nvidia.com/gpu-driver-upgrade-state and skips a node
// labelled nvidia.com/gpu-driver-upgrade.skip=true:
// https://github.com/NVIDIA/k8s-operator-libs/blob/main/pkg/upgrade/consts.go and
// https://github.com/NVIDIA/k8s-operator-libs/blob/main/pkg/upgrade/common_manager.go
// (`node.Labels[GetUpgradeSkipNodeLabelKey()] == "true"`).
//
// `gpuqual plan` and `gpuqual revalidate` leave alone a node the Operator is upgrading (any state
// but none, upgrade-done and upgrade-failed: cordoning, draining, restarting the driver or
// validating it is the Operator's) and a node the Operator was told to skip: draining it under
// the Operator would race its own drain, and a skipped node is the user's hold.
#include <optional>
#include <string>
#include <string_view>

#include <map>

namespace gpuqual {

using NodeLabels = std::map<std::string, std::string>;

inline constexpr const char* kDriverUpgradeStateLabel = "nvidia.com/gpu-driver-upgrade-state";
inline constexpr const char* kDriverUpgradeSkipLabel = "nvidia.com/gpu-driver-upgrade.skip";

// The node's upgrade state ("" when it has none).
std::string driver_upgrade_state(const NodeLabels& labels);

// Whether the Operator's controller is moving the node: a state other than "", upgrade-done and
// upgrade-failed. A state this code does not know (a later library's) counts as moving: safer
// to wait than to drain under the Operator.
bool driver_upgrade_in_progress(std::string_view state);

// nvidia.com/gpu-driver-upgrade.skip=true (exactly "true", as the controller compares it).
bool driver_upgrade_skipped(const NodeLabels& labels);

enum class OperatorHold { none, upgrading, skipped };

struct OperatorHoldReason {
  OperatorHold hold = OperatorHold::none;
  std::string reason;  // one line naming the label and its value; "" for none
};

// Why the plan leaves the node alone, if it does. The skip label wins over a state: a skipped
// node is not moved by the Operator whatever its state label says.
OperatorHoldReason operator_hold(const NodeLabels& labels);

}  // namespace gpuqual
