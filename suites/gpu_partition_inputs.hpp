#pragma once
// What the `mig` and `gpu_sharing` checks read besides the record's inventory (docs/mig.md):
// the Node object's capacity (the same file as `--node-file`, GPUQUAL_NODE_FILE by default) and
// a config file that may be absent at its default mount path. And the one place P2P and NCCL ask
// whether their GPUs are MIG instances or vGPUs, which they skip as not applicable.
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "core/record/record.hpp"
#include "suites/check_context.hpp"

namespace gpuqual {

// status.capacity's nvidia.com/* of the Node file `path` ("" : GPUQUAL_NODE_FILE; neither:
// nullopt). A file named but unreadable or not a Node throws InputError.
std::optional<std::map<std::string, std::int64_t>> read_node_capacity(const std::string& path);

// The text of `path`; nullopt when it does not exist and `required` is false (a default mount
// path the node does not have). Throws InputError for an unreadable file.
std::optional<std::string> read_optional_file(const std::string& path, bool required);

// A `skip` with mig_instance when a GPU the check is to measure is in MIG mode, else with
// vgpu_guest when `vgpu_applies` and one is a vGPU; nullopt otherwise.
std::optional<CheckResult> partition_skip(const std::string& check, const CheckContext& ctx,
                                          bool vgpu_applies);

}  // namespace gpuqual
