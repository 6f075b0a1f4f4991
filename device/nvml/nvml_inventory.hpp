#pragma once
// The inventory's GPUs from NVML's side (docs/inventory.md, "GPUs NVML cannot read"): every
// device NVML lists is either tied to a GPU of the record, with what NVML failed to give of it
// (GpuInfo::nvml_unread), or, when it cannot be tied (no handle, neither UUID nor bus id read),
// listed in NodeFacts::nvml_devices_unread. Nothing NVML lists is dropped: a lost GPU
// (NVML_ERROR_GPU_IS_LOST) that nvmlDeviceGetCount still counts fails the node at judging.
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

class NvmlSession;

// CUDA listed `gpus`: each is completed with NVML's facts (fill_gpu_from_nvml). One NVML lists
// no device for by UUID or bus id gets NVML's answer for a handle at its bus id
// (nvmlDeviceGetHandleByPciBusId_v2) when that fails. NVML devices not opened or not identified
// that no GPU accounts for go to node.nvml_devices_unread; opened, identified devices that CUDA
// does not list are outside this process's GPUs (CUDA_VISIBLE_DEVICES) and left out.
void add_nvml_facts(const NvmlSession& nvml, std::vector<GpuInfo>& gpus, NodeFacts& node);

// CUDA listed none: the GPUs NVML identifies (a UUID or a bus id), each under its NVML index
// with NVML's facts; the others go to node.nvml_devices_unread. `count_error` gets the count's
// own failure.
std::vector<GpuInfo> gpus_from_nvml(const NvmlSession& nvml, NodeFacts& node, std::string* count_error);

}  // namespace gpuqual
