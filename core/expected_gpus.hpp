#pragma once
// How many GPUs the judged node should have, and the finding when it has fewer: the classic
// "a GPU fell off the bus after the upgrade", which no benchmark of the GPUs that are left can
// notice. The count comes from, in order: --expect-gpus; the baseline's gpu_count; the node's
// Kubernetes labels in the record (GPU Feature Discovery's nvidia.com/gpu.count, else an
// nvidia.com/gpu capacity entry). `diff` has its own rule: every GPU of the before-record.
#include <map>
#include <optional>
#include <string>

#include "core/baseline.hpp"
#include "core/record.hpp"
#include "core/verdict.hpp"

namespace gpuqual {

struct ExpectedGpus {
  int count = 0;
  std::string source;  // "--expect-gpus", "the baseline's gpu_count", "label nvidia.com/gpu.count"
};

std::optional<ExpectedGpus> expected_gpu_count(const RunRecord& record, const Baseline* baseline,
                                               std::optional<int> expect_gpus_flag);
// The same from the node's labels alone (before there is a record: `run` hands it to health).
std::optional<ExpectedGpus> expected_gpu_count(const std::map<std::string, std::string>& k8s_labels,
                                               const Baseline* baseline, std::optional<int> expect_gpus_flag);

// The `gpu.missing` finding row (check "gpus", status fail) when the record has fewer GPUs than
// expected, naming how many and the source of the expectation; empty when none is missing.
std::optional<FindingRow> missing_gpus_row(const RunRecord& record, const ExpectedGpus& expected);

}  // namespace gpuqual
