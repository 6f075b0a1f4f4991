// Console output: a header naming what was judged, the metric table (metric, GPU, expected,
// observed, delta %, allowed, status), findings, checks that did not pass, the per-GPU roll-up
// and the reasons. Plain text with aligned columns: it ends up in Job logs, not terminals only.
#include <fmt/format.h>

#include <vector>

#include "core/gate_summary.hpp"
#include "core/text_case.hpp"
#include "core/text_escape.hpp"
#include "runner/reporters/report_format.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

namespace {

using report::Row;

void table(std::string& out, const Row& header, const std::vector<Row>& rows) { report::aligned_table(out, header, rows); }

// Every cell and header value: one line, controls shown as escapes (core/text_escape.hpp), so a
// name with a newline cannot print a forged line such as "gpuqual: PASS".
std::string one_line(std::string_view s) { return terminal_line(s); }

}  // namespace

std::string render_table(const Verdict& v) {
  const bool gate = v.kind == "gate";
  std::string out = gate ? fmt::format("gpuqual gate: {} node{} ({})\n", v.nodes.size(), v.nodes.size() == 1 ? "" : "s",
                                       v.hardware_class.empty() ? "no class" : one_line(v.hardware_class))
                         : fmt::format("gpuqual {}: {} ({}), run {}\n", v.kind, v.hostname.empty() ? "(no hostname)" : one_line(v.hostname),
                                       v.hardware_class.empty() ? "unknown class" : one_line(v.hardware_class),
                                       v.run_id.empty() ? "-" : one_line(v.run_id));
  out += fmt::format("driver {}, CUDA {}, baseline {}\n", v.driver_version.empty() ? "-" : one_line(v.driver_version),
                     v.cuda_driver_version.empty() ? "-" : one_line(v.cuda_driver_version),
                     v.baseline.empty() ? "none" : one_line(v.baseline));
  // diff: what changed in the stack comes before what moved in the metrics.
  if (!v.stack_changes.empty()) {
    out += gate ? "\nstack in the pool:\n" : "\nstack changes:\n";
    for (const auto& s : v.stack_changes) out += "  " + one_line(s) + "\n";
  }
  // gate: the pool table (nodes x verdict, worst metrics) stands for the per-node rows below.
  if (gate) out += "\n" + render_pool_table(v);
  if (!v.metrics.empty()) {
    std::vector<Row> rows;
    for (const auto& m : v.metrics) {
      rows.push_back({one_line(m.metric), report::gpu(m.gpu), report::value(m.expected), report::value(m.observed), one_line(m.unit),
                      report::delta(m.delta_pct), report::allowed(m), std::string(to_string(m.status)),
                      m.status == Status::pass ? "" : one_line(m.reason)});
    }
    out += "\n";
    table(out, {"METRIC", "GPU", "EXPECTED", "OBSERVED", "UNIT", "DELTA", "ALLOWED", "STATUS", "NOTE"}, rows);
  }
  if (!v.findings.empty()) {
    std::vector<Row> rows;
    for (const auto& f : v.findings) {
      rows.push_back({one_line(f.finding.code), report::gpu(f.finding.gpu), std::string(to_string(f.status)), one_line(f.reason),
                      one_line(f.finding.action)});
    }
    out += "\n";
    table(out, {"FINDING", "GPU", "STATUS", "REASON", "ACTION"}, rows);
  }
  if (!v.checks.empty() && !gate) {
    std::vector<Row> rows;
    for (const auto& c : v.checks) {
      rows.push_back({one_line(c.check), report::gpu(c.gpu), std::string(to_string(c.status)), one_line(c.reason)});
    }
    out += "\n";
    table(out, {"CHECK", "GPU", "STATUS", "REASON"}, rows);
  }
  if (!v.per_gpu.empty()) {
    std::vector<Row> rows;
    for (const auto& [gpu, status] : v.per_gpu) rows.push_back({std::to_string(gpu), std::string(to_string(status))});
    out += "\n";
    table(out, {"GPU", "STATUS"}, rows);
  }
  for (const auto& n : v.nodes) {
    if (!gate) out += fmt::format("\nnode {}: {}\n", one_line(n.hostname), one_line(n.summary));
  }
  out += fmt::format("\nverdict: {}\n", to_upper(to_string(v.outcome)));
  for (const auto& r : v.reasons) out += "  - " + one_line(r) + "\n";
  return escape_controls(out);  // an ESC in a hostname is shown, not obeyed
}

}  // namespace gpuqual
