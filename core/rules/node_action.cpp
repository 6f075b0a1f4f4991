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

}  // namespace gpuqual
