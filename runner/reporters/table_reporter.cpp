// Console output: a header naming what was judged, the causes several rows share (said once),
// the metric table (metric, GPU, expected, observed, delta %, allowed, status), findings, checks
// that did not pass, the per-GPU roll-up and the reasons. Plain text with aligned columns, every
// line at most the output's width (docs/output-formats.md, "Width"): it ends up in Job logs and
// terminals alike.
#include <fmt/format.h>

#include <vector>

#include "core/base/plural.hpp"
#include "core/base/text_case.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "core/judge/common_cause.hpp"
#include "core/judge/compare_rules.hpp"
#include "core/judge/compare_summary.hpp"
#include "core/judge/gate.hpp"
#include "runner/reporters/report_format.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

namespace {

using report::Row;

// Every cell and header value: one line, controls shown as escapes (core/base/text_escape.hpp), so a
// name with a newline cannot print a forged line such as "gpuqual: PASS".
std::string one_line(std::string_view s) { return terminal_line(s); }

// The reasons of the table's rows, in the order it shows them: where the shared causes are
// found. Not the verdict's reasons, which repeat the rows (they are shortened by what is found).
std::vector<std::string> shown_reasons(const Verdict& v) {
  const bool gate = v.kind == "gate";
  std::vector<std::string> out;
  if (gate) {
    for (const auto& n : v.nodes) {
      if (n.outcome == Outcome::inconclusive && !n.reasons.empty()) out.push_back(n.reasons.front());
    }
  }
  for (const auto& m : v.metrics) {
    if (m.status != Status::pass) out.push_back(m.reason);
  }
  for (const auto& f : v.findings) out.push_back(f.reason);
  if (!gate) {
    for (const auto& c : v.checks) out.push_back(c.reason);
    for (const auto& n : v.nodes) out.push_back(n.summary);
  }
  return out;
}

std::string head(const Verdict& v) {
  const bool gate = v.kind == "gate";
  std::string out = gate
                        ? fmt::format("gpuqual gate: {} ({})\n", plural(v.nodes.size(), "node"),
                                      v.hardware_class.empty() ? "no class" : one_line(v.hardware_class))
                        : fmt::format("gpuqual {}: {} ({}), run {}\n", v.kind,
                                      v.hostname.empty() ? "(no hostname)" : one_line(v.hostname),
                                      v.hardware_class.empty() ? "unknown class" : one_line(v.hardware_class),
                                      v.run_id.empty() ? "-" : one_line(v.run_id));
  out += fmt::format("driver {}, CUDA {}, baseline {}\n",
                     v.driver_version.empty() ? "-" : one_line(v.driver_version),
                     v.cuda_driver_version.empty() ? "-" : one_line(v.cuda_driver_version),
                     v.baseline.empty() ? "none" : one_line(v.baseline));
  return out;
}

void metric_table(std::string& out, const Verdict& v, const SharedCauses& causes, std::size_t width) {
  std::vector<Row> rows;
  for (const auto& m : v.metrics) {
    rows.push_back({one_line(m.metric), one_line(report::gpu(m)), report::value(m.expected),
                    report::value(m.observed), one_line(m.unit), report::delta(m.delta_pct),
                    report::allowed(m), std::string(to_string(m.status)),
                    m.status == Status::pass ? "" : one_line(causes.refer(m.reason))});
  }
  out += "\n";
  report::aligned_table(
      out, {"METRIC", "GPU", "EXPECTED", "OBSERVED", "UNIT", "DELTA", "ALLOWED", "STATUS", "NOTE"}, rows,
      width, {8});
}

void finding_table(std::string& out, const Verdict& v, const SharedCauses& causes, std::size_t width) {
  std::vector<Row> rows;
  for (const auto& f : v.findings) {
    rows.push_back({one_line(f.finding.code), report::gpu(f.finding.gpu), std::string(to_string(f.status)),
                    one_line(causes.refer(f.reason)), one_line(f.finding.action)});
  }
  out += "\n";
  report::aligned_table(out, {"FINDING", "GPU", "STATUS", "REASON", "ACTION"}, rows, width, {3, 4});
}

void check_table(std::string& out, const Verdict& v, const SharedCauses& causes, std::size_t width) {
  std::vector<Row> rows;
  for (const auto& c : v.checks) {
    rows.push_back({one_line(c.check), report::gpu(c), std::string(to_string(c.status)),
                    one_line(causes.refer(c.reason))});
  }
  out += "\n";
  report::aligned_table(out, {"CHECK", "GPU", "STATUS", "REASON"}, rows, width, {3});
}

// "gemm.bf16.tflops gpu 3 -7.1%" for a judged row, "hbm.triad.gbps gpu 1 missing" otherwise.
std::string short_metric(const MetricRow& m) {
  if (m.delta_pct && m.status != Status::error) {
    return fmt::format("{} {} {:+.1f}%", m.metric, scope_name(m.gpu), *m.delta_pct);
  }
  return fmt::format("{} {} {}", m.metric, scope_name(m.gpu),
                     m.status == Status::error ? "not judged" : to_string(m.status));
}

// A node's WORST METRICS cell: its first three metric rows (a node verdict lists its worst first),
// or an inconclusive node's first reason, its shared cause named by its first clause.
std::string worst_metrics_note(const Verdict& n, const SharedCauses* causes) {
  if (n.outcome == Outcome::inconclusive && !n.reasons.empty()) {
    return causes ? causes->refer(n.reasons.front()) : n.reasons.front();
  }
  std::vector<std::string> worst;
  for (const auto& m : n.metrics) {
    if (worst.size() < 3) worst.push_back(short_metric(m));
  }
  return worst.empty() ? "-" : fmt::format("{}", fmt::join(worst, ", "));
}

}  // namespace

std::string render_pool_table(const Verdict& v, std::size_t max_passing, std::size_t width,
                              const SharedCauses* causes) {
  std::vector<Row> rows;
  std::size_t passing = 0, hidden = 0;
  for (const auto& n : v.nodes) {
    if (n.outcome == Outcome::pass && passing++ >= max_passing) {
      ++hidden;
      continue;
    }
    const bool unreadable =
        n.checks.size() == 1 && n.checks.front().check == kUnreadableRecordCheck && n.run_id.empty();
    rows.push_back({n.hostname.empty() ? "(no hostname)" : n.hostname, n.hardware_class,
                    unreadable ? std::string("error") : std::string(to_string(n.outcome)),
                    worst_metrics_note(n, causes), n.run_id});
  }
  std::string out;
  report::aligned_table(out, {"NODE", "CLASS", "VERDICT", "WORST METRICS", "RUN"}, rows, width, {3});
  if (hidden) out += fmt::format("... and {}\n", plural(hidden, "more passing node"));
  return out;
}

std::string render_table(const Verdict& v, std::size_t width) {
  const bool gate = v.kind == "gate";
  const SharedCauses causes = find_shared_causes(shown_reasons(v));
  std::string out = head(v);
  if (!causes.empty()) {
    out += "\n";
    for (const auto& line : causes.header()) out += one_line(line) + "\n";
  }
  // diff: what changed in the stack comes before what moved in the metrics.
  if (!v.stack_changes.empty()) {
    out += gate ? "\nstack in the pool:\n" : "\nstack changes:\n";
    for (const auto& s : v.stack_changes) out += "  " + one_line(s) + "\n";
  }
  // gate: the pool table (nodes x verdict, worst metrics) stands for the per-node rows below.
  if (gate) out += "\n" + render_pool_table(v, 20, width, &causes);
  if (!v.metrics.empty()) metric_table(out, v, causes, width);
  if (!v.findings.empty()) finding_table(out, v, causes, width);
  if (!v.checks.empty() && !gate) check_table(out, v, causes, width);
  if (!v.per_gpu.empty()) {
    std::vector<Row> rows;
    for (const auto& [gpu, status] : v.per_gpu)
      rows.push_back({std::to_string(gpu), std::string(to_string(status))});
    out += "\n";
    report::aligned_table(out, {"GPU", "STATUS"}, rows, width);
  }
  for (const auto& n : v.nodes) {
    if (!gate) out += fmt::format("\nnode {}: {}\n", one_line(n.hostname), one_line(causes.refer(n.summary)));
  }
  out += fmt::format("\nverdict: {}\n", to_upper(to_string(v.outcome)));
  for (const auto& r : v.reasons) out += "  - " + one_line(causes.refer(r)) + "\n";
  // An ESC in a hostname is shown, not obeyed; then no line wider than the output.
  return wrap_lines(escape_controls(out), width);
}

std::string summary_line(const Verdict& v, std::size_t width) {
  const std::string whole = terminal_line(v.summary);
  if (display_width(whole) <= width) return whole;
  return fit_summary(whole, width, find_shared_causes(shown_reasons(v)));
}

}  // namespace gpuqual
