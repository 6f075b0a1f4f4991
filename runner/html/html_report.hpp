#pragma once
// `gpuqual report`: one self-contained HTML page (inline CSS, inline SVG drawn here, no scripts,
// no fonts, images or URLs) that shows a verdict the way people would rather look at it: the
// outcome and its reasons first, the stack, each metric per GPU against the expectation and its
// tolerance band, burn-in time series, findings with their meaning and action; before/after bars
// for a diff and a nodes x metrics heat map for a pool.
#include <string>
#include <vector>

#include "core/fleet/matrix.hpp"
#include "core/record/record.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/verdict.hpp"
#include "runner/html/html_burnin.hpp"

namespace gpuqual::html {

// One node of a pool: its full compare verdict (not the gate's trimmed one), for the heat map.
struct PoolNode {
  std::string node;
  std::string path;
  Verdict verdict;
};

struct ReportInput {
  const Verdict* verdict = nullptr;   // what the page is about (compare, diff or gate)
  const RunRecord* record = nullptr;  // judged record (the after-record of a diff); may be null for a gate
  const RunRecord* before = nullptr;  // diff: the before-record, for the stack columns
  const SeverityTable* severity = nullptr;     // meaning and action of finding codes; may be null
  std::vector<PoolNode> pool;                  // gate: one per node
  const BurninTelemetry* telemetry = nullptr;  // burn-in side file series; may be null
  const Matrix* matrix = nullptr;              // `--matrix`: the compatibility matrix section; may be null
};

std::string render_report(const ReportInput& input);

// Pieces, exposed for tests.
// One chart for the rows of one metric (same metric name): a bar per GPU, the expectation and the
// band of values that pass. `before_after`: the expectation is each GPU's before-value (diff).
std::string metric_chart_svg(const std::vector<const MetricRow*>& rows, bool before_after);
std::string status_color(Status s);
std::string outcome_color(Outcome o);

}  // namespace gpuqual::html
