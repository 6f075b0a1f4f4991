#pragma once
// `gpuqual diff BEFORE AFTER`: did this node get worse across an upgrade? Judges the after-record
// against the before-record of the same node, with the noise model (noise_model.hpp) on the
// samples of both, and lists what changed in the stack first.
//
// fail: a metric worse than the allowed drop with confidence; a GPU present before and missing
// after; a new finding of severity warn or fail (or one whose count grew), and any fail-severity
// finding after; a check that fails after.
// inconclusive: a metric measured before that is missing or unjudgeable after, a check that
// errored after, or nothing at all to compare.
// warn: a drop beyond the allowed drop that the samples cannot confirm, or beyond a warn level;
// a metric whose samples scatter far more than the class's noise.
// diff is never weaker than compare (docs/diff.md): the after-record is also judged as compare
// judges it, against `after_baseline`, and the worse of the two verdicts stands.
#include <string>

#include "core/baseline/baseline.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/record/record.hpp"
#include "core/verdict/target.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct DiffOptions {
  double allowed_drop = 0.02;            // fraction; worse than this with confidence → fail
  double confidence = 0.95;              // two-sided coverage of the interval
  const Baseline* tolerances = nullptr;  // per-metric overrides: tolerance, warn_tolerance
  bool strict = false;                   // warn counts as fail
  std::string before_origin;             // path of the before-record (Verdict::baseline)
  const Target* target = nullptr;        // --target: the after-record must be on this stack
  // The after-record's own baseline (as `compare --baseline` resolves it): compare's verdict of
  // the after-record alone; null when `after_baseline_missing` says why there is none (then
  // inconclusive), or when both are empty (library callers: the before-record alone decides).
  const Baseline* after_baseline = nullptr;
  std::string after_baseline_missing;
  // Where compare of the after-record finds its other units' baselines (MIG slices and compute
  // instances, core/baseline/unit_baseline.hpp): without it a MIG node can never pass a diff.
  BaselineSource* unit_baselines = nullptr;
};

Verdict diff_records(const RunRecord& before, const RunRecord& after, const DiffOptions& options);

}  // namespace gpuqual
