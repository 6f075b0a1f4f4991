#pragma once
// The renderers of one Verdict, one output format per file. Each returns the whole document as
// text (report_options.cpp decides where it goes), so golden tests can compare them exactly.
#include <cstddef>
#include <string>

#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "core/judge/common_cause.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual {

// Console: the shared causes, aligned columns, then reasons; no line wider than `width` columns.
std::string render_table(const Verdict& verdict, std::size_t width = kDefaultOutputWidth);
// The last line on stdout, in the table and the JSON format alike: the verdict's summary as one
// line; when it is wider than `width`, without the details that repeat a cause the table says
// once (fit_summary, core/judge/compare_summary.hpp). The JSON document's "summary" and the files keep
// it whole.
std::string summary_line(const Verdict& verdict, std::size_t width);
// gate's pool table, above the report: one line per node (NODE, CLASS, VERDICT, WORST METRICS,
// RUN), nodes that did not pass first. At most `max_passing` passing nodes are listed; the rest
// are counted. No line is wider than `width` (core/base/text_table.hpp); an inconclusive node's
// reason names the `causes` said above the table by their first clause.
std::string render_pool_table(const Verdict& gate, std::size_t max_passing = 20,
                              std::size_t width = kNoWidthLimit, const SharedCauses* causes = nullptr);
std::string render_json(const Verdict& verdict);        // gpuqual.verdict/v1
std::string render_junit(const Verdict& verdict);       // JUnit XML: one testcase per check × GPU
std::string render_prometheus(const Verdict& verdict);  // node-exporter textfile format
std::string render_markdown(const Verdict& verdict);    // a PR comment or a job summary

}  // namespace gpuqual
