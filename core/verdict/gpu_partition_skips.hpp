#pragma once
// Whether a record bears out the not-applicable codes of MIG, GPU sharing and vGPU
// (core/record/skip_reason.cpp; docs/mig.md, "What does not apply"), for the unit the skip is of:
// - mig_instance: on a GPU's row, that GPU is in MIG mode; for the whole check, a GPU is in MIG
//   mode and fewer than two are not, since p2p and nccl_allreduce still run among the whole GPUs
//   of a node that has both (runner/run/device_parts.hpp);
// - vgpu_guest: on a GPU's row, that GPU's virtualization mode is vgpu; for the whole check, a GPU
//   is a vGPU and, for a check between GPUs (p2p), fewer than two are not;
// - mig_disabled: every GPU known not to use MIG; no_gpu_sharing: no replicas or sharing strategy
//   in the Node's labels (node facts, whatever the unit).
// A skip of the whole check covers only the GPUs its code holds for: the every-GPU rule still asks
// the others for their own result (core/judge/compare_requirements.cpp).
#include <optional>
#include <string>
#include <string_view>

#include "core/record/record.hpp"

namespace gpuqual {

bool is_gpu_partition_code(std::string_view code);

// nullopt when the record bears the code out for `gpu` (an index of `r`; nullopt: the whole
// check `check`), else why not.
std::optional<std::string> gpu_partition_refusal(const RunRecord& r, std::string_view code,
                                                 const std::optional<int>& gpu = std::nullopt,
                                                 std::string_view check = "");

}  // namespace gpuqual
