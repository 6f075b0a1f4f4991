#pragma once
// Per-slice runs (docs/mig.md, "Measuring each slice"). On a node whose selected GPUs include
// one in MIG mode, a check that measures one CUDA device at a time (gemm, hbm, memtest, pcie,
// burnin) runs once per MIG device, in a child that sees only that device, and once for the
// whole GPUs beside them: a CUDA process enumerates a single MIG device, named
// `CUDA_VISIBLE_DEVICES=MIG-<uuid>`, and a GPU in MIG mode is no CUDA device of its own (NVIDIA
// MIG user guide, "CUDA Device Enumeration"; CUDA programming guide, "CUDA_VISIBLE_DEVICES":
// GPU and MIG UUIDs, enumerated in the order given). Checks between GPUs (p2p, nccl_allreduce)
// run among the whole GPUs only. Each child is told a node of the devices it sees, numbered
// from 0 as CUDA numbers them; its result is mapped back to the record's GPU indices and each
// slice's rows are tagged with its MIG device. Nodes without MIG run every check once, as ever.
#include <string>
#include <string_view>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

struct DevicePart {
  std::string label;             // "GPU 2 MIG-... (1g.18gb)", "whole GPUs 0,1": names the part in reasons
  std::string visible_devices;   // the child's CUDA_VISIBLE_DEVICES
  std::vector<int> record_gpus;  // the record's GPU index of the child's CUDA device k
  std::string mig_device;        // the slice's MIG UUID; "" for whole GPUs
  std::string hardware_class;    // what the child is told: the slice's class, else the parent's
  std::string problem;           // non-empty: the part cannot be addressed (no UUID); not run
};

// gemm, hbm, memtest, pcie and burnin: the checks that measure each CUDA device on its own
// (measured_per_mig_device, core/record/mig_class.hpp: the judge asks them of each slice).
bool runs_per_mig_device(std::string_view check);
// A check that runs on CUDA devices at all (the above, p2p, nccl_allreduce).
bool runs_on_cuda_devices(std::string_view check);

// The parts `check` runs as on this node; empty when none of `selected` is in MIG mode, or the
// check does not use CUDA devices, or no part could run it (then it runs once, as on any node,
// and says for itself why it does not apply: partition_skip, suites/gpu_partition_inputs.hpp).
std::vector<DevicePart> device_parts(std::string_view check, const std::vector<int>& selected,
                                     const std::vector<GpuInfo>& gpus, const std::string& parent_class);

// The inventory a part's child is given: the record's node facts, and its devices as GPUs
// 0..k-1 (a slice: its parent's facts with the slice's UUID, memory and SM count, no MIG state;
// the record's class marked overridden, since a slice's memory is no product's). The slice's
// own class reaches the child as its task's hardware_class (DevicePart::hardware_class).
RunRecord part_inventory(const RunRecord& record, const DevicePart& part);

// Maps a part's result from the child's device numbers to the record's, tagging a slice's
// metrics, findings and per-GPU statuses with its MIG device. Throws InputError (naming `file`)
// when the result names a device the child was not given.
void map_part_result(CheckResult& result, const DevicePart& part, const std::string& file);

// One result of the parts' (mapped) results, in part order: the worst status, each part's
// reason prefixed with its label, rows concatenated, a slice's attributes under
// "<MIG uuid>/<key>", the earliest start and the longest duration (the parts run side by side).
CheckResult merge_part_results(const std::string& check, const std::vector<DevicePart>& parts,
                               std::vector<CheckResult> results);

}  // namespace gpuqual
