#pragma once
// What `gpuqual matrix build` groups records by, read from one record: the node's stack
// components, the workload images it validated, and the node's identity. ONE function lists the
// stack components, so that a component added to the record's stack inventory (docs/inventory.md) is one line
// here and reaches the matrix, its formats, `matrix check` and `matrix rollback` together.
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

// (component name, value) in a fixed order, components the record does not state left out.
// Names are `gpuqual.target/v1` component names (core/verdict/target.hpp), so a matrix row prints as a
// target that loads back. A per-GPU component (vbios) with several values is their set: sorted,
// distinct, joined with "," (the GPUs' order must not split one stack into two rows).
// The libraries gpuqual itself carries (CUDA runtime, cuBLAS, NCCL) are not the node's stack:
// upgrading gpuqual must not split a row, so they are left out.
using StackComponents = std::vector<std::pair<std::string, std::string>>;
StackComponents matrix_components(const RunRecord& record);
// The component names a row is grouped by, in that order: a component a row does not state is
// part of its identity too ("no kubernetes recorded" is another row than "kubernetes 1.33").
std::span<const std::string_view> matrix_component_names();
// Whether `name` is one of them (a hand-edited matrix naming another is refused).
bool is_matrix_component(std::string_view name);
// Puts components in that same order (names it does not know last, by name): a matrix read back
// from a file lists them as the builder did.
void order_stack(StackComponents& stack);

// The container images the record's container probes ran and passed ("registry/app:tag"),
// sorted and distinct: the workload images this stack validated.
std::vector<std::string> validated_images(const RunRecord& record);

// The record's GPU UUIDs, sorted and distinct, empty ones left out: the machine it ran on
// (docs/matrix.md: one machine under several node names counts once).
std::vector<std::string> record_gpu_uuids(const RunRecord& record);

// The node a record is from: its Kubernetes node name, else its hostname (as gate counts nodes).
std::string record_node(const RunRecord& record);

// The compute capability and product name of the record's GPUs (the first GPU; a class has one
// product): what the driver-branch rules are judged on. Empty when the record has no GPU.
std::string record_compute_capability(const RunRecord& record);
std::string record_gpu_product(const RunRecord& record);

}  // namespace gpuqual
