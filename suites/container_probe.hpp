#pragma once
// What the container probe's CUDA preflight needs from this node, shared by the
// `container_probe` check and `gpuqual probe container`: the host driver and GPUs as
// NVIDIA_REQUIRE_* sees them (device/compat_facts.hpp) and the rules table
// (<tables dir>/cuda-compat.yaml). Never throws: a table that cannot be read leaves the
// preflight "not evaluated" with the reason.
#include <string>

#include "probes/image_compat.hpp"

namespace gpuqual {

probes::CompatInputs node_compat_inputs(const std::string& tables_dir);

}  // namespace gpuqual
