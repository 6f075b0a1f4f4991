// The HTML report page: verdict and reasons, stack, metric charts, findings, checks, pool heat
// map. Everything from records goes through escape(); nothing on the page loads anything.
#include "runner/html/html_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "core/base/text_case.hpp"
#include "core/base/version.hpp"
#include "runner/html/html_escape.hpp"
#include "runner/html/html_matrix.hpp"
#include "runner/reporters/report_format.hpp"

namespace gpuqual::html {

namespace {

constexpr const char* kStyle = R"(<style>
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;color:#24292f;margin:24px;max-width:1100px}
h1{font-size:22px;margin:0 0 4px} h2{font-size:17px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
h3{font-size:14px;margin:16px 0 4px}
.verdict{border-radius:6px;padding:14px 18px;color:#fff} .verdict p{margin:4px 0}
.verdict ul{margin:6px 0 0 18px;padding:0}
table{border-collapse:collapse;font-size:13px} td,th{border:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f6f8fa} tr.changed td{background:#fff8c5;font-weight:bold}
.s-pass{color:#1a7f37} .s-warn{color:#bf8700;font-weight:bold} .s-fail{color:#cf222e;font-weight:bold}
.s-error,.s-skip{color:#57606a;font-weight:bold}
.muted{color:#57606a;font-size:12px} .legend span{display:inline-block;margin-right:14px}
td.heat{text-align:right;color:#fff;font-weight:bold}
</style>)";

std::string status_span(Status s) { return fmt::format("<span class=\"s-{0}\">{0}</span>", to_string(s)); }

int status_rank(Status s) {
  switch (s) {
    case Status::pass:
      return 0;
    case Status::skip:
      return 1;
    case Status::warn:
      return 2;
    case Status::error:
      return 3;
    case Status::fail:
      return 4;
  }
  return 3;
}

void kv_row(std::string& out, std::string_view key, std::string_view value) {
  out += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", escape(key), escape(value.empty() ? "-" : value));
}

// The stack facts shown (and compared against the before-record), in order.
std::vector<std::pair<std::string, std::string>> stack_of(const RunRecord& r) {
  std::vector<std::pair<std::string, std::string>> s;
  s.emplace_back("host", r.node.hostname);
  s.emplace_back("Kubernetes node", r.node.k8s_node_name);
  s.emplace_back("hardware class", r.hardware_class.slug);
  s.emplace_back(
      "GPUs", fmt::format("{} x {}", r.gpus.size(), r.gpus.empty() ? std::string("-") : r.gpus.front().name));
  s.emplace_back("driver", r.node.driver_version);
  s.emplace_back("CUDA (driver)", r.node.cuda_driver_version);
  s.emplace_back("CUDA runtime", r.node.cuda_runtime_version);
  s.emplace_back("cuBLAS", r.node.cublas_version);
  s.emplace_back("NCCL", r.node.nccl_version);
  std::set<std::string> vbios;
  for (const auto& g : r.gpus) vbios.insert(g.vbios);
  std::string v;
  for (const auto& b : vbios) v += (v.empty() ? "" : ", ") + b;
  s.emplace_back("VBIOS", v);
  s.emplace_back("kernel", r.node.kernel);
  s.emplace_back("OS", r.node.os);
  s.emplace_back("CPU", r.node.cpu_model);
  std::string rt;
  for (const auto& c : r.node.container_runtimes) rt += (rt.empty() ? "" : ", ") + c;
  s.emplace_back("container runtimes", rt);
  s.emplace_back("gpuqual",
                 r.tool.version + (r.tool.git_revision.empty() ? "" : " (" + r.tool.git_revision + ")"));
  s.emplace_back("run", r.run_id);
  s.emplace_back("started", r.started_at);
  return s;
}

void verdict_section(std::string& out, const Verdict& v) {
  out += fmt::format("<div class=\"verdict\" id=\"verdict\" data-outcome=\"{}\" style=\"background:{}\">\n",
                     to_string(v.outcome), outcome_color(v.outcome));
  out += fmt::format("<h1>gpuqual {}: {}</h1>\n", escape(v.kind), escape(to_upper(to_string(v.outcome))));
  out += fmt::format("<p>{}</p>\n", escape(v.summary));
  out += fmt::format("<p>exit code {}{}</p>\n", v.exit_code, v.strict ? " (--strict)" : "");
  if (!v.reasons.empty()) {
    out += "<ul class=\"reasons\">\n";
    for (const auto& r : v.reasons) out += fmt::format("<li>{}</li>\n", escape(r));
    out += "</ul>\n";
  }
  out += "</div>\n";
}

void stack_section(std::string& out, const Verdict& v, const RunRecord* record, const RunRecord* before) {
  out += "<h2 id=\"stack\">Stack</h2>\n";
  if (!v.stack_changes.empty()) {
    out += "<p><b>Changed since the before-record:</b></p><ul class=\"stack-changes\">\n";
    for (const auto& c : v.stack_changes) out += fmt::format("<li>{}</li>\n", escape(c));
    out += "</ul>\n";
  }
  out += "<table class=\"stack\">\n";
  if (record) {
    const auto after = stack_of(*record);
    if (before) {
      const auto prev = stack_of(*before);
      out += "<tr><th></th><th>before</th><th>after</th></tr>\n";
      for (std::size_t i = 0; i < after.size(); ++i) {
        const bool changed =
            prev[i].second != after[i].second && after[i].first != "run" && after[i].first != "started";
        out +=
            fmt::format("<tr{}><th>{}</th><td>{}</td><td>{}</td></tr>\n", changed ? " class=\"changed\"" : "",
                        escape(after[i].first), escape(prev[i].second.empty() ? "-" : prev[i].second),
                        escape(after[i].second.empty() ? "-" : after[i].second));
      }
    } else {
      for (const auto& [k, val] : after) kv_row(out, k, val);
    }
  } else {
    kv_row(out, "host", v.hostname);
    kv_row(out, "hardware class", v.hardware_class);
    kv_row(out, "driver", v.driver_version);
    kv_row(out, "CUDA (driver)", v.cuda_driver_version);
  }
  if (record && before) {
    out += fmt::format("<tr><th>before-record</th><td colspan=\"2\">{}</td></tr>\n",
                       escape(v.baseline.empty() ? "-" : v.baseline));
  } else {
    kv_row(out, v.kind == "diff" ? "before-record" : "baseline", v.baseline);
  }
  out += "</table>\n";
}

void metrics_section(std::string& out, const Verdict& v) {
  if (v.metrics.empty()) return;
  const bool diff = v.kind == "diff";
  out += "<h2 id=\"metrics\">Metrics</h2>\n";
  out += diff ? "<p class=\"legend muted\"><span>grey bar: before</span><span>coloured bar: after (by "
                "status)</span>"
                "<span>green band: values that pass (before to the allowed drop)</span><span>red dashes: "
                "fails beyond</span></p>\n"
              : "<p class=\"legend muted\"><span>black line: expected (baseline)</span><span>green band: "
                "values that pass "
                "(expected to the allowed drop, noise included)</span><span>red dashes: fails "
                "beyond</span><span>bar colour: status</span></p>\n";
  std::vector<std::string> order;
  for (const auto& m : v.metrics)
    if (std::find(order.begin(), order.end(), m.metric) == order.end()) order.push_back(m.metric);
  for (const auto& name : order) {
    std::vector<const MetricRow*> rows;
    Status worst = Status::pass;
    for (const auto& m : v.metrics) {
      if (m.metric != name) continue;
      rows.push_back(&m);
      if (status_rank(m.status) > status_rank(worst)) worst = m.status;
    }
    const MetricRow& first = *rows.front();
    out += fmt::format("<div class=\"metric\" data-metric=\"{}\" data-status=\"{}\">\n", escape(name),
                       to_string(worst));
    out += fmt::format("<h3>{} <span class=\"muted\">{}, {} is better; allowed {}</span> {}</h3>\n",
                       escape(name), escape(first.unit),
                       first.direction == Direction::higher ? "higher" : "lower",
                       escape(report::allowed(first)), status_span(worst));
    out += metric_chart_svg(rows, diff);
    for (const MetricRow* r : rows) {
      if (r->status != Status::pass && !r->reason.empty())
        out += fmt::format("<p class=\"muted\">{}: {}</p>\n",
                           r->gpu ? fmt::format("GPU {}", *r->gpu) : std::string("node"), escape(r->reason));
    }
    out += "</div>\n";
  }
}

const SeverityRule* rule_for(const SeverityTable* table, const std::string& code) {
  if (!table) return nullptr;
  if (code.rfind("xid.", 0) == 0) {
    try {
      return &table->xid(std::stoi(code.substr(4)));
    } catch (const std::exception&) {
      return nullptr;
    }
  }
  const auto it = table->findings.find(code);
  return it == table->findings.end() ? nullptr : &it->second;
}

void findings_section(std::string& out, const Verdict& v, const SeverityTable* table) {
  out += "<h2 id=\"findings\">Findings</h2>\n";
  if (v.findings.empty()) {
    out += "<p class=\"muted\">No findings.</p>\n";
    return;
  }
  out +=
      "<table class=\"findings\">\n<tr><th>GPU</th><th>finding</th><th>status</th><th>what was "
      "seen</th><th>what it means</th>"
      "<th>action</th></tr>\n";
  for (const auto& f : v.findings) {
    const SeverityRule* rule = rule_for(table, f.finding.code);
    const std::string meaning = rule ? rule->meaning : f.reason;
    const std::string action = !f.finding.action.empty() ? f.finding.action : (rule ? rule->action : "");
    out += fmt::format(
        "<tr data-status=\"{}\"><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
        to_string(f.status), escape(report::gpu(f.finding.gpu)), escape(f.finding.code),
        status_span(f.status), escape(f.finding.detail.empty() ? f.reason : f.finding.detail),
        escape(meaning.empty() ? "-" : meaning), escape(action.empty() ? "-" : action));
  }
  out += "</table>\n";
}

void checks_section(std::string& out, const Verdict& v) {
  if (v.checks.empty()) return;
  out +=
      "<h2 id=\"checks\">Checks</h2>\n<table "
      "class=\"checks\">\n<tr><th>check</th><th>GPU</th><th>status</th><th>reason</th>"
      "<th>duration</th></tr>\n";
  for (const auto& c : v.checks) {
    out += fmt::format(
        "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1f} s</td></tr>\n", escape(c.check),
        escape(c.mig_device.empty() ? report::gpu(c.gpu) : report::gpu(c.gpu) + " " + c.mig_device),
        status_span(c.status), escape(c.reason), c.duration_s);
  }
  out += "</table>\n";
}

// The cell colour of the heat map: green at the expectation, through amber, to red at and past
// the allowed drop; status decides when the metric failed or could not be judged.
std::string heat_color(const MetricRow& r) {
  if (r.status == Status::fail) return status_color(Status::fail);
  if (r.status == Status::error || r.status == Status::skip || !r.delta_pct)
    return status_color(Status::error);
  const double drop = r.direction == Direction::higher ? -*r.delta_pct : *r.delta_pct;
  const double frac =
      r.allowed_drop_pct > 0 ? std::clamp(drop / r.allowed_drop_pct, 0.0, 1.0) : (drop > 0 ? 1.0 : 0.0);
  if (r.status == Status::warn || frac > 0.5) return status_color(Status::warn);
  return status_color(Status::pass);
}

void pool_section(std::string& out, const std::vector<PoolNode>& pool) {
  if (pool.empty()) return;
  std::vector<std::string> metrics;
  for (const auto& n : pool)
    for (const auto& m : n.verdict.metrics)
      if (std::find(metrics.begin(), metrics.end(), m.metric) == metrics.end()) metrics.push_back(m.metric);
  out +=
      "<h2 id=\"pool\">Pool</h2>\n<p class=\"muted\">One row per record file (the verdict above counts a "
      "node once: its newest record). Each cell: the node's worst GPU for that metric, change against the "
      "baseline (green within half the allowed drop, amber beyond it or warn, red fail, grey not "
      "judged).</p>\n";
  out += "<table class=\"heatmap\">\n<tr><th>node</th><th>verdict</th>";  // then one column per metric, then
                                                                          // findings
  for (const auto& m : metrics) out += fmt::format("<th>{}</th>", escape(m));
  out += "<th>findings</th></tr>\n";
  for (const auto& n : pool) {
    out += fmt::format(
        "<tr data-node=\"{}\"><th>{}<br><span class=\"muted\">{}</span></th><td><span "
        "class=\"s-{}\">{}</span></td>",
        escape(n.node), escape(n.node), escape(n.path),
        n.verdict.outcome == Outcome::inconclusive ? "error" : std::string(to_string(n.verdict.outcome)),
        escape(to_string(n.verdict.outcome)));
    for (const auto& name : metrics) {
      const MetricRow* worst = nullptr;
      for (const auto& m : n.verdict.metrics) {
        if (m.metric != name) continue;
        const auto drop = [](const MetricRow& r) {
          return r.delta_pct ? (r.direction == Direction::higher ? -*r.delta_pct : *r.delta_pct) : 1e300;
        };
        if (!worst || status_rank(m.status) > status_rank(worst->status) ||
            (status_rank(m.status) == status_rank(worst->status) && drop(m) > drop(*worst)))
          worst = &m;
      }
      if (!worst) {
        out += "<td class=\"heat\" style=\"background:#eaeef2;color:#57606a\">-</td>";
        continue;
      }
      out += fmt::format("<td class=\"heat {}\" style=\"background:{}\" title=\"{}\">{}</td>",
                         to_string(worst->status), heat_color(*worst), escape(worst->reason),
                         escape(report::delta(worst->delta_pct)));
    }
    // Findings decide a node as much as metrics do (an ECC error fails it at full speed).
    Status worst_finding = Status::pass;
    int flagged = 0;
    for (const auto& f : n.verdict.findings) {
      if (f.status == Status::pass) continue;
      ++flagged;
      if (status_rank(f.status) > status_rank(worst_finding)) worst_finding = f.status;
    }
    if (flagged == 0) {
      out += "<td class=\"findings\">-</td>";
    } else {
      std::string codes;
      for (const auto& f : n.verdict.findings)
        if (f.status != Status::pass) codes += (codes.empty() ? "" : ", ") + f.finding.code;
      out += fmt::format("<td class=\"findings s-{}\">{} {}: {}</td>", to_string(worst_finding), flagged,
                         to_string(worst_finding), escape(codes));
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
}

}  // namespace

std::string render_report(const ReportInput& in) {
  const Verdict& v = *in.verdict;
  const std::string title =
      fmt::format("gpuqual {} {}: {}", v.kind, v.hostname.empty() ? std::string("pool") : v.hostname,
                  to_string(v.outcome));
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += fmt::format("<title>{}</title>\n", escape(title));
  out += kStyle;
  out += "\n</head>\n<body>\n";
  verdict_section(out, v);
  if (v.kind == "gate") {
    pool_section(out, in.pool);
  } else {
    stack_section(out, v, in.record, in.before);
    metrics_section(out, v);
    if (in.record) out += burnin_section(*in.record, in.telemetry);
    findings_section(out, v, in.severity);
    checks_section(out, v);
  }
  if (in.matrix) out += matrix_section(*in.matrix);
  out += fmt::format(
      "<p class=\"muted\" id=\"footer\">Generated by gpuqual {} from {} ({}).</p>\n", escape(tool_version()),
      escape(v.kind == "gate" ? std::string("the pool's records") : v.run_id), escape(kVerdictSchema));
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace gpuqual::html
