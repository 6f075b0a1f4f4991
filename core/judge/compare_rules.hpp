#pragma once
// The judging rules of `gpuqual compare`, one value at a time (docs/compare.md).
// compare.cpp applies them to every metric and finding of a record and rolls the rows up.
#include <cstddef>
#include <optional>
#include <string>

#include "core/baseline/baseline.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// Relative change in the bad direction: positive when the metric got worse. `expected` > 0.
double relative_drop(double expected, double observed, Direction direction);

// The drop that still passes. Without a noise model this is the baseline's tolerance. With
// noise_cv (the run-to-run CV of healthy nodes), a drop within 3 standard deviations of healthy
// noise passes: sigma = sqrt(noise_cv^2 + se^2), where se = sqrt(pi/2) * cv / sqrt(n) is the
// standard error of this run's median. The widening never exceeds twice the tolerance, so a
// reviewer who reads "tolerance: 0.05" knows nothing worse than 10 % ever passes.
double allowed_drop(const MetricExpectation& expectation, double observed_cv, std::size_t n);

// Judges one measured metric against its expectation: pass, warn (beyond warn_tolerance, or
// beyond tolerance but within the noise allowance), fail (beyond the allowance) or error (unit
// or direction mismatch, no samples).
MetricRow judge_metric(const std::string& check, const Metric& metric, const MetricExpectation& expectation);

// The finding limit that applies to `code`: an exact match first, else the longest ".*" prefix.
const FindingLimit* find_limit(const Baseline* baseline, const std::string& code);

// Judges a finding by its limit (value over max_value, or any occurrence), else by its severity
// (fail → fail, warn → warn, info → pass): the record's, raised to what gpuqual's shipped table
// gives the code (judging_severity_table(), core/rules/health_severity.hpp). The row's finding carries
// the judged severity.
FindingRow judge_finding(const std::string& check, const Finding& finding, const Baseline* baseline);

// The fewest decimals (1..6) at which two percentages print differently, so that no reason reads
// "-5.0% beyond -5.0%": a drop of 5.04 % past a 5 % tolerance prints as -5.04% and 5.00%.
int distinct_precision(double a, double b);

// A finding that passed on its own (informational) but belongs to a check that ended skip or
// error at its scope takes that status: "compat.no_driver" is never shown as a green pass.
void not_green_when_unmeasured(FindingRow& row, const CheckResult& check);

// A metric row as the record has it, not yet judged: check, metric, GPU, unit, direction and the
// observed median (judge_metric's start, and compare's row of a metric the baseline cannot judge).
MetricRow recorded_metric_row(const std::string& check, const Metric& m);

// "gpu 3" or "node": how rows name their scope in reasons and summaries.
std::string scope_name(const std::optional<int>& gpu);

// "-7.1% < -5.0%": a judged metric row's change against the drop it was allowed, at the fewest
// decimals that tell the two apart (distinct_precision); how compare's, diff's and gate's summary
// lines word a regression. The row must have a delta_pct.
std::string delta_vs_allowed(const MetricRow& m);

}  // namespace gpuqual
