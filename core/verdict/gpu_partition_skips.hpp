#pragma once
// Whether a record bears out the not-applicable codes of MIG, GPU sharing and vGPU
// (core/record/skip_reason.cpp; docs/mig.md): mig_instance needs a GPU in MIG mode, mig_disabled
// every GPU known not to use MIG, no_gpu_sharing no replicas or sharing strategy in the Node's
// labels, vgpu_guest a GPU whose virtualization mode is vgpu.
#include <optional>
#include <string>
#include <string_view>

#include "core/record/record.hpp"

namespace gpuqual {

bool is_gpu_partition_code(std::string_view code);

// nullopt when the record bears the code out, else why not.
std::optional<std::string> gpu_partition_refusal(const RunRecord& r, std::string_view code);

}  // namespace gpuqual
