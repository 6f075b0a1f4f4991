// Markdown for a merge-request comment, a GitHub job summary or a ticket. Every record string
// goes through report::md_cell (escape_markdown, core/base/text_escape.hpp), so a '|' or a newline in
// a reason cannot break the table, and no link, image, @mention, emphasis or HTML gets through.
#include <fmt/format.h>

#include "core/base/text_case.hpp"
#include "core/base/text_escape.hpp"
#include "runner/reporters/report_format.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

namespace {

std::string cell(std::string_view s) { return report::md_cell(s); }

std::string status(Status s) {
  return s == Status::pass ? "pass" : fmt::format("**{}**", to_string(s));  // what needs a look stands out
}

void row(std::string& out, std::initializer_list<std::string> cells) {
  out += "|";
  for (const auto& c : cells) out += " " + c + " |";
  out += "\n";
}

}  // namespace

std::string render_markdown(const Verdict& v) {
  std::string out = fmt::format("# gpuqual {}: {}\n\n", v.kind, to_upper(to_string(v.outcome)));
  out += cell(v.summary) + "\n\n";
  out += "| | |\n|---|---|\n";
  row(out, {"node", cell(v.hostname)});
  row(out, {"hardware class", cell(v.hardware_class)});
  row(out, {"run", cell(v.run_id)});
  row(out, {"driver", cell(v.driver_version)});
  row(out, {"CUDA (driver)", cell(v.cuda_driver_version)});
  row(out, {"baseline", cell(v.baseline)});
  row(out, {"exit code", fmt::format("{}{}", v.exit_code, v.strict ? " (--strict)" : "")});
  if (!v.reasons.empty()) {
    out += "\n## Reasons\n\n";
    for (const auto& r : v.reasons) out += "- " + cell(r) + "\n";
  }
  if (!v.metrics.empty()) {
    out +=
        "\n## Metrics\n\n| metric | GPU | expected | observed | unit | delta | allowed | status | note |\n"
        "|---|---|---:|---:|---|---:|---:|---|---|\n";
    for (const auto& m : v.metrics) {
      row(out, {cell(m.metric), cell(report::gpu(m)), report::value(m.expected), report::value(m.observed),
                cell(m.unit), report::delta(m.delta_pct), report::allowed(m), status(m.status),
                m.status == Status::pass ? "" : cell(m.reason)});
    }
  }
  if (!v.findings.empty()) {
    out += "\n## Findings\n\n| finding | GPU | status | reason | action |\n|---|---|---|---|---|\n";
    for (const auto& f : v.findings) {
      row(out, {cell(f.finding.code), report::gpu(f.finding.gpu), status(f.status), cell(f.reason),
                cell(f.finding.action)});
    }
  }
  if (!v.checks.empty()) {
    out += "\n## Checks\n\n| check | GPU | status | reason |\n|---|---|---|---|\n";
    for (const auto& c : v.checks)
      row(out, {cell(c.check), report::gpu(c), status(c.status), c.reason.empty() ? "" : cell(c.reason)});
  }
  if (!v.per_gpu.empty()) {
    out += "\n## GPUs\n\n| GPU | status |\n|---|---|\n";
    for (const auto& [gpu, s] : v.per_gpu) row(out, {std::to_string(gpu), status(s)});
  }
  if (!v.stack_changes.empty()) {
    out += v.kind == "gate" ? "\n## Stack in the pool\n\n" : "\n## Stack changes\n\n";
    for (const auto& s : v.stack_changes) out += "- " + cell(s) + "\n";
  }
  if (!v.nodes.empty()) {
    out += "\n## Nodes\n\n| node | outcome | summary |\n|---|---|---|\n";
    for (const auto& n : v.nodes)
      row(out, {cell(n.hostname), to_upper(to_string(n.outcome)), cell(n.summary)});
  }
  return escape_controls(out);  // an ESC in a hostname is shown, not obeyed
}

}  // namespace gpuqual
