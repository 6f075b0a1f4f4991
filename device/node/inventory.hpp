#pragma once
// The node's inventory: node facts, every GPU, and the hardware class. Collected once per run by
// the parent process and copied into the run record and into every check's context. Never
// throws for a missing driver/NVML/GPU: those are facts ("no GPU: <reason from CUDA>").
#include <map>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct InventoryOptions {
  std::string class_override;                   // --class; empty = derive
  std::string k8s_labels_file;                  // mounted labels file (key=value lines), optional
  std::string k8s_node_file;                    // the Node object as JSON (--node-file), optional
  std::map<std::string, std::string> platform;  // --platform NAME=VERSION
};

struct Inventory {
  NodeFacts node;
  std::vector<GpuInfo> gpus;
  HardwareClass hardware_class;
  // Why CUDA cannot use the GPUs (the runtime's and NVML's messages); "" when CUDA enumerated
  // them. Non-empty with a non-empty `gpus` when NVML sees GPUs that CUDA cannot use (a driver
  // older than the CUDA runtime gpuqual carries): they are listed with NVML's facts.
  std::string gpu_unavailable_reason;
};

Inventory collect_inventory(const InventoryOptions& options);

}  // namespace gpuqual
