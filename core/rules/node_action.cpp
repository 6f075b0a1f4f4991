#include "core/rules/node_action.hpp"

#include <array>

namespace gpuqual {

namespace {

constexpr std::array<std::string_view, 7> kNames = {"none",      "watch",  "restart_workload", "drain",
                                                    "reset_gpu", "reboot", "service"};

}  // namespace

std::string_view to_string(NodeAction a) { return kNames.at(static_cast<std::size_t>(a)); }

std::optional<NodeAction> parse_node_action(std::string_view text) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (kNames[i] == text) return static_cast<NodeAction>(i);
  }
  return std::nullopt;
}

std::string_view node_action_names() {
  return "none, watch, restart_workload, drain, reset_gpu, reboot or service";
}

std::optional<NodeAction> nvml_recovery_node_action(int nvml_action) {
  // Indexed by nvmlDeviceGpuRecoveryAction_t (nvml.h; what each asks of the user: NVIDIA, "Error
  // Recovery and Response Flags",
  // https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/error-recovery-and-response-flags.html).
  // DRAIN_P2P: end the processes doing peer-to-peer traffic, then ask again; no reset: drain. DRAIN_AND_RESET
  // and BUS_RESET: a reset (which includes the drain; a bus reset is still no reboot). RECOVER_IMEX_DOMAIN:
  // the node's IMEX imports are gone until the domain is recovered: drain.
  static constexpr std::array<NodeAction, 8> kByNvml = {
      NodeAction::none,      NodeAction::reset_gpu, NodeAction::reboot,    NodeAction::drain,
      NodeAction::reset_gpu, NodeAction::drain,     NodeAction::reset_gpu, NodeAction::reboot};
  if (nvml_action < 0 || nvml_action >= static_cast<int>(kByNvml.size())) return std::nullopt;
  return kByNvml[static_cast<std::size_t>(nvml_action)];
}

}  // namespace gpuqual
