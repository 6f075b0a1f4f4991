#pragma once
// What a node needs after a finding: one ordered set, weakest first (docs/actions.md). Each
// health finding and each Xid takes its action from the severity tables' `node_action` column
// (baselines/health-findings.yaml, baselines/xid-severity.yaml); a verdict's action is the
// strongest of its findings' (core/verdict/verdict_action.hpp).
#include <optional>
#include <string_view>

namespace gpuqual {

// Ordered: a stronger action includes the weaker ones (a GPU reset needs the node drained first).
enum class NodeAction { none, watch, restart_workload, drain, reset_gpu, reboot, service };

std::string_view to_string(NodeAction a);
// "none" … "service"; nullopt for anything else.
std::optional<NodeAction> parse_node_action(std::string_view text);
// "none, watch, restart_workload, drain, reset_gpu, reboot or service": for error messages.
std::string_view node_action_names();

// What the driver's own recovery action for a GPU (NVML_FI_DEV_GET_GPU_RECOVERY_ACTION, an
// nvmlDeviceGpuRecoveryAction_t) asks of the node, in this set (table and why: docs/actions.md,
// "The driver's recovery action"). nullopt for a value this build does not know: the row then
// takes its status's floor.
std::optional<NodeAction> nvml_recovery_node_action(int nvml_action);

}  // namespace gpuqual
