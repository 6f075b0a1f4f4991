#pragma once
// What a check is run with (suites/check.hpp says what a check is). The suite's parameters
// arrive as JSON, so this header, unlike check.hpp, needs nlohmann/json.
#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct CheckContext {
  // GPUs this check must measure (indices into `node_gpus`); empty on a GPU-less node.
  std::vector<int> gpus;
  // The inventory the parent collected: node facts and every GPU of the node.
  NodeFacts node;
  std::vector<GpuInfo> node_gpus;
  std::string hardware_class;
  // Why node_gpus is empty (the CUDA/NVML message the inventory got); "" when GPUs were found.
  // A GPU check on a GPU-less node reports skip/error with this reason.
  std::string gpu_unavailable_reason;
  // The check's parameters from the suite YAML, as JSON (sizes, precisions, durations...).
  nlohmann::json params = nlohmann::json::object();
  // Soft time budget: a check that samples stops sampling when it runs out. The watchdog's hard
  // timeout is separate and larger.
  double budget_s = 60;
  // Set when the run is being stopped (SIGTERM): long checks end early and keep what they have.
  const std::atomic<bool>* stop_requested = nullptr;
  // Optional progress sink ("gemm bf16 gpu 3: 12/40 samples"); the runner shows it on a TTY.
  std::function<void(const std::string&)> progress;
  // Directory for side files (telemetry streams): next to the record.
  // The runner creates it before the first check and removes it again if it stays empty.
  std::string side_dir;
  // The child's CUDA_VISIBLE_DEVICES ("MIG-<uuid>", or whole GPUs' UUIDs) when the check runs
  // once per MIG device (runner/run/device_parts.hpp); set before the check touches CUDA.
  // Empty: the environment the run was started with.
  std::string visible_devices;

  bool should_stop() const { return stop_requested && stop_requested->load(); }
};

}  // namespace gpuqual
