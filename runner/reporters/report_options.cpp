#include "runner/reporters/report_options.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <cstdio>
#include <exception>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {

void add_report_options(CLI::App* cmd, ReportOptions& o) {
  cmd->add_option("--format", o.format, "What stdout shows before the summary line: table or json")
      ->check(CLI::IsMember({"table", "json"}))
      ->capture_default_str();
  cmd->add_option("--junit", o.junit, "Also write JUnit XML (one testcase per check x GPU) to FILE")
      ->type_name("FILE");
  cmd->add_option("--prometheus", o.prometheus,
                  "Also write a node-exporter textfile (.prom) to FILE, atomically")
      ->type_name("FILE");
  cmd->add_option("--markdown", o.markdown, "Also write a Markdown report to FILE")->type_name("FILE");
  cmd->add_flag("--strict", o.strict, "Warnings count as failures (exit 1)");
}

bool uses_report_flags(const ReportOptions& r) {
  return r.format != "table" || !r.junit.empty() || !r.prometheus.empty() || !r.markdown.empty();
}

namespace {

void write_report(const std::string& path, const std::string& text) {
  if (path.empty()) return;
  try {
    write_file_atomic(path, text);
  } catch (const std::exception& e) {
    // An unwritable output path is the caller's mistake: exit 3, not a verdict.
    std::string why = e.what();  // "<path>: is a directory": the path is said once
    if (why.rfind(path + ": ", 0) == 0) why.erase(0, path.size() + 2);
    throw InputError(path, "", "cannot write the report: " + why);
  }
}

}  // namespace

int emit_reports(const Verdict& v, const ReportOptions& o, const std::vector<std::string>& notes) {
  // Files first: if one cannot be written, stdout carries no verdict that a caller might trust.
  // Rendered only when asked for: a 10,000-node gate verdict is hundreds of MB as Prometheus text.
  if (!o.junit.empty()) write_report(o.junit, render_junit(v));
  if (!o.prometheus.empty()) write_report(o.prometheus, render_prometheus(v));
  if (!o.markdown.empty()) write_report(o.markdown, render_markdown(v));
  if (!o.json.empty()) write_report(o.json, render_json(v));
  // The table and the summary line fit the terminal, or 100 columns in a log
  // (docs/output-formats.md, "Width").
  const std::size_t width = output_width(STDOUT_FILENO);
  if (o.format == "json") {
    std::fputs(render_json(v).c_str(), stdout);
  } else {
    std::fputs(render_table(v, width).c_str(), stdout);
    for (const auto& n : notes) std::fputs((wrap_lines(terminal_line(n), width) + "\n").c_str(), stdout);
  }
  // One line, its controls shown (core/base/text_escape.hpp), the same in both formats.
  std::fputs((summary_line(v, width) + "\n").c_str(), stdout);
  std::fflush(stdout);
  if (o.strict && v.outcome == Outcome::warn) return exit_code_for(v.outcome, true);
  return v.exit_code;
}

}  // namespace gpuqual
