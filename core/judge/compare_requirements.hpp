#pragma once
// What a record must hold and be to earn a PASS beyond its judged rows (docs/compare.md, "What
// earns a PASS"): a finished run (`complete: true`), at least one metric judged against the
// baseline, every check its suite (core/verdict/suite_requirements.hpp) and its baseline
// (`checks: {X: {required: true}}`) require, health and every `every_gpu: true` check covering
// every GPU of the record. Each unmet requirement is an error check row (inconclusive, never a
// pass) whose reason the verdict lists. Used by compare, and through it by gate and diff.
#include <string>
#include <vector>

#include "core/baseline/baseline.hpp"
#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// The check that should have produced `metric`: the one that produced it on another GPU, else the
// check named by the metric's first component ("hbm" for hbm.triad.gbps).
std::string producing_check(const RunRecord& record, const std::string& metric);

// Adds the rows to `v` (its metric rows already judged) and returns their reasons.
std::vector<std::string> add_requirement_rows(const RunRecord& record, const Baseline* baseline, Verdict& v);

}  // namespace gpuqual
