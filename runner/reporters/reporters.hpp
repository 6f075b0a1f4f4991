#pragma once
// The renderers of one Verdict, one output format per file. Each returns the whole document as
// text (report_options.cpp decides where it goes), so golden tests can compare them exactly.
#include <string>

#include "core/verdict.hpp"

namespace gpuqual {

std::string render_table(const Verdict& verdict);       // console: aligned columns, then reasons
std::string render_json(const Verdict& verdict);        // gpuqual.verdict/v1
std::string render_junit(const Verdict& verdict);       // JUnit XML: one testcase per check × GPU
std::string render_prometheus(const Verdict& verdict);  // node-exporter textfile format
std::string render_markdown(const Verdict& verdict);    // a PR comment or a job summary

}  // namespace gpuqual
