#pragma once
// The check rows of a verdict (compare and diff; JUnit turns each into a testcase): one per
// check × GPU the check touched, and a node row when it touched none or has node-scope results.
// The record's own status is the base; the judged metric and finding rows of the same check and
// scope can only make it worse.
#include <vector>

#include "core/record/record.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// `c` is a check of the judged record `r`; `v` holds the judged metric and finding rows.
// `skipped_metrics_place_gpu`: whether a skipped metric row puts the check on its GPU (diff: yes;
// compare: no, a skip there is only a metric the baseline does not judge). A skip's
// not-applicable code is accepted only when it holds for `r` (core/verdict/skip_acceptance.hpp); else the
// row says why not.
std::vector<CheckRow> check_rows(const RunRecord& r, const CheckResult& c, const Verdict& v,
                                 bool skipped_metrics_place_gpu);

}  // namespace gpuqual
