#pragma once
// Builds a Metric from raw samples: median, CV, min and max come from stats.hpp so every check
// summarises the same way. Readers use the same functions to recompute what a record states, so
// a verdict is always decided on the numbers that were measured, never on a stored summary.
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

Metric summarize_metric(std::string name, std::string unit, Direction direction, std::optional<int> gpu,
                        std::vector<double> samples, int throttled_samples = 0);

// A stored summary field that disagrees with the one recomputed from the samples.
struct SummaryMismatch {
  std::string field;    // "median", "min", "max" or "cv"
  std::string problem;  // "median 771 disagrees with the samples (their median is 500)"
};

// Recomputes median, min, max and CV of `m` from its samples and replaces the stored values with
// them. Returns the first stored field that differed by more than rounding: a relative 1e-3 (the
// record keeps at least 4 significant digits), and for the CV also an absolute 5e-4 (a CV written
// to three decimals). A metric without samples is left as it is: there is nothing to recompute,
// and the judging rules treat it as not measured.
std::optional<SummaryMismatch> recompute_summary(Metric& m);

}  // namespace gpuqual
