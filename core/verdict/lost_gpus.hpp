#pragma once
// What NVML failed to give of the record's GPUs, judged from the record alone so compare, diff
// and gate (through compare) say the same (docs/inventory.md, "GPUs NVML cannot read"):
// - an NVML answer NVML_ERROR_GPU_IS_LOST, on a GPU (gpus[].nvml_unread) or a device the
//   inventory could not tie to one (node.nvml_devices_unread): `gpu.lost`, fail. The GPU has
//   fallen off the bus; it does not count as present, even where nvmlDeviceGetCount counted it;
// - any other failure to give a GPU's handle, UUID or bus id: `gpu.nvml_unread`, a row that is
//   inconclusive (error): the record cannot say the GPU is the one it names, so it never passes.
#include <vector>

#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// NVML answered GPU_IS_LOST for this GPU (any entry of nvml_unread).
bool gpu_lost(const GpuInfo& gpu);

// The record's GPUs less the lost ones: what the expected GPU count is held against.
int present_gpu_count(const RunRecord& record);

// The rows above, under the check name `check` ("inventory").
std::vector<FindingRow> nvml_unread_rows(const RunRecord& record, const char* check);

}  // namespace gpuqual
