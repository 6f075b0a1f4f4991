#pragma once
// The words of a gate verdict: its one-line summary (printed last on stdout) and the pool
// summary table (nodes × verdict, with each node's worst metrics) shown above the report.
#include <cstddef>
#include <string>

#include "core/judge/common_cause.hpp"
#include "core/base/text_table.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct GateCounts {
  std::size_t failed = 0, inconclusive = 0, warned = 0, passed = 0;
  std::size_t duplicates = 0;
  std::size_t max_failed = 0;
  std::size_t unreadable = 0;  // records that could not be read (their nodes are `error`)
};

// "gpuqual gate: FAIL 8 nodes (h200-sxm-141gb): 1 failed (node-c), 7 passed; pool: 1 of 5
//  metrics regressed (hbm.triad.gbps -4.1% < -2.0%); 1 duplicate record ignored"
std::string gate_summary(const Verdict& gate, const GateCounts& counts);

// Pool table: one line per node (NODE, CLASS, VERDICT, WORST METRICS, RUN), nodes that did not
// pass first. At most `max_passing` passing nodes are listed; the rest are counted. No line is
// wider than `width` (core/base/text_table.hpp); an inconclusive node's reason names the `causes`
// said above the table by their first clause.
std::string render_pool_table(const Verdict& gate, std::size_t max_passing = 20, std::size_t width = kNoWidthLimit,
                              const SharedCauses* causes = nullptr);

// "gemm.bf16.tflops gpu 3 -7.1%" for a judged row, "hbm.triad.gbps gpu 1 missing" otherwise.
std::string short_metric(const MetricRow& row);

}  // namespace gpuqual
