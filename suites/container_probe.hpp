#pragma once
// What the container probe's CUDA preflight needs from this node, shared by the
// `container_probe` check and `gpuqual probe container`: the host driver and GPUs as
// NVIDIA_REQUIRE_* sees them (device/node/compat_facts.hpp) and the rules table
// (<tables dir>/cuda-compat.yaml). Never throws: a table that cannot be read leaves the
// preflight "not evaluated" with the reason.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "probes/container/image_compat.hpp"

namespace gpuqual {

probes::CompatInputs node_compat_inputs(const std::string& tables_dir);

// For the runner, after a `container_probe` child was killed (SIGKILL, crash): removes the
// containers whose creating process is gone, with the runtime of the check's parameters.
// The janitor normally did this already; it matters when the janitor was killed too (a reaper
// that kills every orphan). Returns the names removed; never throws (problems are returned as
// "not removed: ..." entries).
std::vector<std::string> container_probe_after_abort(const nlohmann::json& params);

}  // namespace gpuqual
