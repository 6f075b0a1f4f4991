#pragma once
// The check rows of a verdict (compare and diff; JUnit turns each into a testcase): one per
// check × GPU the check touched, and a node row when it touched none or has node-scope results.
// The record's own status is the base; the judged metric and finding rows of the same check and
// scope can only make it worse.
#include <vector>

#include "core/record.hpp"
#include "core/verdict.hpp"

namespace gpuqual {

// `v` holds the judged metric and finding rows. `skipped_metrics_place_gpu`: whether a skipped
// metric row puts the check on its GPU (diff: yes; compare: no, a skip there is only a metric the
// baseline does not judge).
std::vector<CheckRow> check_rows(const CheckResult& c, const Verdict& v, bool skipped_metrics_place_gpu);

}  // namespace gpuqual
