#pragma once
// Collects the StackInventory of this node (core/record/stack_inventory.hpp) from its readers, all
// without privileges. The roots are parameters so a test runs the whole collection on a fake
// tree; the defaults are the real paths.
#include <map>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

class NvmlSession;

struct StackSources {
  std::string sys = "/sys";
  std::string proc = "/proc";
  std::string root;       // prefix of /etc, /usr, /lib, /var/run ("" = the real /)
  std::string path_env;   // PATH to look for nv-fabricmanager, nvidia-ctk ("" = $PATH)
  std::string node_file;  // Kubernetes Node JSON (--node-file / $GPUQUAL_NODE_FILE), "" none
  std::map<std::string, std::string> platform;  // --platform NAME=VERSION
};

StackInventory collect_stack_inventory(const NvmlSession& nvml, const std::vector<GpuInfo>& gpus,
                                       const StackSources& sources);

}  // namespace gpuqual
