#pragma once
// How many GPUs the judged node should have, and the finding when it has fewer: the classic
// "a GPU fell off the bus after the upgrade", which no benchmark of the GPUs that are left can
// notice. The count is the largest of every source there is (docs/compare.md, "What earns a
// PASS"): --expect-gpus; the baseline's gpu_count; the node's Kubernetes labels in the record
// (GPU Feature Discovery's nvidia.com/gpu.count, an nvidia.com/gpu capacity entry); the Node's
// nvidia.com/gpu capacity (node.stack); the NVIDIA GPUs on the PCI bus bound to the nvidia driver
// or to none (node.pci_gpus; one handed to a VM is not the node's); the before-record's GPUs
// (diff). With a GPU in MIG mode the Node's nvidia.com/gpu (label and capacity) counts whole GPUs or
// MIG devices and is left out; GFD's nvidia.com/gpu.count still counts the physical GPUs unless the
// `single` strategy made it count MIG devices (docs/mig.md, "Expected GPUs").
// No source may lower another: a label of 8 and a baseline of 2 expect 8. No source at
// all: the node's completeness is unknown (nullopt), which compare judges inconclusive.
#include <map>
#include <optional>
#include <string>

#include "core/baseline/baseline.hpp"
#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct ExpectedGpus {
  int count = 0;
  std::string source;  // "--expect-gpus", "the baseline's gpu_count", "label nvidia.com/gpu.count"
};

// Whether a GPU on the PCI bus is this node's to use: bound to the NVIDIA driver, to none (it
// failed to bind) or to another host driver (nouveau: the node's GPU, unusable until fixed). One
// bound to a passthrough driver (vfio-pci, pci-stub) was handed to a VM and is not the node's.
bool pci_gpu_is_the_nodes(const PciGpu& gpu);

// GPU Feature Discovery's labels count MIG devices, not GPUs: the `single` MIG strategy
// (nvidia.com/mig.strategy=single, or a product label naming a profile, `...-MIG-1g.10gb`).
bool labels_count_mig_devices(const std::map<std::string, std::string>& labels);

std::optional<ExpectedGpus> expected_gpu_count(const RunRecord& record, const Baseline* baseline,
                                               std::optional<int> expect_gpus_flag,
                                               std::optional<int> before_record_gpus = std::nullopt);
// The same from the node's labels, the baseline and the flag alone (before there is a record:
// `run` hands it to health).
std::optional<ExpectedGpus> expected_gpu_count(const std::map<std::string, std::string>& k8s_labels,
                                               const Baseline* baseline, std::optional<int> expect_gpus_flag);

// The `gpu.missing` finding row (check "gpus", status fail) when the record has fewer GPUs than
// expected, naming how many and the source of the expectation; empty when none is missing.
// A record whose process was given a subset of the node's GPUs (node.visible_devices) has none
// missing: it qualifies those GPUs, not the node (subset_of_node_reason).
std::optional<FindingRow> missing_gpus_row(const RunRecord& record, const ExpectedGpus& expected);
// "2 of the node's 8 GPUs judged (...)" when the record holds fewer GPUs than expected because
// the run was given a subset of them: never a node pass (inconclusive). Empty otherwise.
std::optional<std::string> subset_of_node_reason(const RunRecord& record, const ExpectedGpus& expected);

}  // namespace gpuqual
