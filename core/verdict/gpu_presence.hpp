#pragma once
// Are the GPUs on the PCI bus the GPUs the driver gave this run? Judged from the record alone
// (node.pci_gpus against gpus[].pci_bus_id), so compare, diff and gate say the same on any
// machine, with or without a baseline:
// - an NVIDIA GPU on the bus, bound to the nvidia driver, that neither NVML nor CUDA listed, or
//   one with no driver bound at all: `gpu.not_visible` (fail), naming the bus id;
// - one bound to another driver (vfio-pci: handed to a VM): `gpu.passthrough` (info);
// - one outside the subset the process was given (node.visible_devices set: a container that
//   holds some of the node's GPUs): `gpu.outside_allocation` (info), never a missing GPU.
// MIG instances carry their parent's bus id and SR-IOV virtual functions are not counted on the
// bus (device/host/pci_gpus.hpp), so neither MIG nor a vGPU host reads as missing GPUs.
// A record without pci_gpus (not read, or an older gpuqual) yields no finding.
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

std::vector<Finding> gpu_presence_findings(const RunRecord& record);

// node.visible_devices names a subset of the node's GPUs (anything but "all"): the process was
// given some of them, so the record cannot speak for the whole node (docs/compare.md).
bool visible_devices_subset(const NodeFacts& node);

}  // namespace gpuqual
