#pragma once
// The output flags every judging command shares (compare, diff, gate, run), and the one place
// that renders a Verdict to them. The one-line summary is always the last line on stdout.
#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "core/verdict/verdict.hpp"

namespace gpuqual {

struct ReportOptions {
  std::string format = "table";  // stdout: table | json
  std::string junit;             // file paths; empty = not written
  std::string prometheus;
  std::string markdown;
  std::string json;  // the gpuqual.verdict/v1 JSON to a file (observe's -o)
  bool strict = false;
};

void add_report_options(CLI::App* cmd, ReportOptions& options);
// Whether any report flag asks for more than the default table (--format json, --junit,
// --prometheus, --markdown): commands that judge nothing refuse them.
bool uses_report_flags(const ReportOptions& options);
// Writes the files atomically, prints the table or JSON, then the summary line. In the table
// format, `notes` (where the record is, what to do next) come between the table and the summary
// line. Returns the verdict's exit code.
int emit_reports(const Verdict& verdict, const ReportOptions& options,
                 const std::vector<std::string>& notes = {});

}  // namespace gpuqual
