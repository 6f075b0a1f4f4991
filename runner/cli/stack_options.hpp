#pragma once
// The flags that feed the record's stack inventory (core/record/stack_inventory.hpp), the same on every
// command that collects an inventory (run, inventory, nccl):
//   --node-file PATH           the Kubernetes Node object as JSON (status.nodeInfo, GPU capacity)
//   --platform NAME=VERSION    a platform component the cluster does not expose on the node,
//                              repeatable: --platform gpu-operator=v25.10.0
// A malformed or repeated --platform is a usage error (exit 3) before anything runs.
#include <CLI/CLI.hpp>

#include <map>
#include <regex>
#include <string>
#include <vector>

#include "core/base/input_error.hpp"
#include "device/node/inventory.hpp"

namespace gpuqual {

struct StackFlags {
  std::string node_file;
  std::vector<std::string> platform;
};

inline std::string platform_flag_problem(const std::string& item) {
  // A name like a Helm release or component (gpu-operator, dcgm-exporter, k8s-device-plugin).
  static const std::regex form(R"([a-z0-9][a-z0-9._-]{0,62}=[^\s=][^\s]*)");
  if (std::regex_match(item, form)) return {};
  return "expected NAME=VERSION (NAME: lowercase letters, digits, '.', '_', '-'; VERSION: no spaces), e.g. "
         "gpu-operator=v25.10.0";
}

inline void add_stack_options(CLI::App* cmd, StackFlags& flags) {
  cmd->add_option(
         "--node-file", flags.node_file,
         "The Kubernetes Node object as JSON (kubectl get node -o json, or gpuqual-node-labels' file) "
         "for the record's stack; default: $GPUQUAL_NODE_FILE")
      ->type_name("PATH");
  cmd->add_option("--platform", flags.platform,
                  "A platform component and its version for the record's stack, repeatable "
                  "(e.g. --platform gpu-operator=v25.10.0)")
      ->type_name("NAME=VERSION")
      ->check(CLI::Validator([](std::string& s) { return platform_flag_problem(s); }, ""));
}

// Into the inventory options; a name given twice is refused (which one would be true?).
inline void apply_stack_flags(const StackFlags& flags, InventoryOptions& options) {
  options.k8s_node_file = flags.node_file;
  for (const auto& item : flags.platform) {
    const auto eq = item.find('=');
    const std::string name = item.substr(0, eq);
    if (!options.platform.emplace(name, item.substr(eq + 1)).second) {
      throw InputError("--platform", "", "component \"" + name + "\" is given twice");
    }
  }
}

}  // namespace gpuqual
