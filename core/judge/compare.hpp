#pragma once
// `gpuqual compare`: judge one run record against the baseline of its hardware class.
#include <optional>
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/record/record.hpp"
#include "core/verdict/target.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct CompareOptions {
  bool strict = false;               // warn counts as fail
  std::optional<int> expect_gpus{};  // --expect-gpus: one source of the expected count (the largest wins)
  const Target* target = nullptr;    // --target: the stack the node must be on (core/verdict/target.hpp)
  // Verdict::stack for the reports' stack labels; gate's per-node verdicts leave it out (the
  // components of 100,000 nodes would be most of the pool's memory and time; records keep them).
  bool with_stack = true;
  // The GPUs of the before-record when diff judges the after-record (core/verdict/expected_gpus.hpp).
  std::optional<int> before_gpu_count{};
  // Where the baselines of the record's other units are found (MIG slices and compute instances,
  // core/baseline/unit_baseline.hpp); null: their metrics stay unjudged (inconclusive).
  BaselineSource* unit_baselines = nullptr;
};

// The `stack.off_target` rows of a judged record (check "stack"): the findings, a check row for
// each, and an error row for each component the record does not state. Returns the texts that
// cannot be judged. Shared by compare and diff.
std::vector<std::string> add_target_rows(const RunRecord& record, const Target& target, Verdict& v);

// The head of a verdict of one record (compare's, diff's of the after-record): its kind and
// what the record says of the node (host name, run id, class, driver and CUDA versions).
Verdict record_verdict(std::string kind, const RunRecord& record);

// `baseline` null means no baseline exists for the record's class: the verdict is
// inconclusive (never pass), with the reason. Checks that errored or were skipped are never
// pass; a metric the baseline requires and the record lacks is inconclusive.
Verdict compare_record(const RunRecord& record, const Baseline* baseline, const CompareOptions& options);

// compare_record with every unit's baseline, the record's own class's included, from `source`
// (options.unit_baselines is set to it): how a command that judges with one source of baselines
// (gate, matrix, report --gate, baseline build) judges each record.
Verdict compare_with_baselines(const RunRecord& record, BaselineSource& source, CompareOptions options);

}  // namespace gpuqual
