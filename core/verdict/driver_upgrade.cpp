#include "core/verdict/driver_upgrade.hpp"

#include <fmt/format.h>

namespace gpuqual {

std::string driver_upgrade_state(const NodeLabels& labels) {
  auto it = labels.find(kDriverUpgradeStateLabel);
  return it == labels.end() ? std::string() : it->second;
}

bool driver_upgrade_in_progress(std::string_view state) {
  return !state.empty() && state != "upgrade-done" && state != "upgrade-failed";
}

bool driver_upgrade_skipped(const NodeLabels& labels) {
  auto it = labels.find(kDriverUpgradeSkipLabel);
  return it != labels.end() && it->second == "true";
}

OperatorHoldReason operator_hold(const NodeLabels& labels) {
  if (driver_upgrade_skipped(labels)) {
    return {
        OperatorHold::skipped,
        fmt::format("{}=true: the GPU Operator's driver upgrade skips this node; gpuqual leaves it alone too "
                    "(remove the label to include it)",
                    kDriverUpgradeSkipLabel)};
  }
  const std::string state = driver_upgrade_state(labels);
  if (driver_upgrade_in_progress(state)) {
    return {OperatorHold::upgrading,
            fmt::format("the GPU Operator is upgrading its driver ({}={}): left alone until upgrade-done",
                        kDriverUpgradeStateLabel, state)};
  }
  return {};
}

}  // namespace gpuqual
