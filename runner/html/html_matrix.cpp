#include "runner/html/html_matrix.hpp"

#include <fmt/format.h>

#include "runner/html/html_escape.hpp"

namespace gpuqual::html {

namespace {

// The verdict colors of the report (html_report.cpp): green pass, red fail, grey undecided.
const char* state_color(MatrixState s) {
  switch (s) {
    case MatrixState::known_good:
      return "#1a7f37";
    case MatrixState::known_bad:
      return "#cf222e";
    case MatrixState::mixed:
      return "#bf8700";
    case MatrixState::unqualified:
      return "#57606a";
  }
  return "#57606a";
}

std::string lines(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : "<br>") + escape(i);
  return out.empty() ? "-" : out;
}

}  // namespace

std::string matrix_section(const Matrix& m) {
  std::string out = "<h2 id=\"matrix\">Compatibility matrix</h2>\n";
  out += fmt::format(
      "<p class=\"muted\">{} records judged, {} unreadable; known-good needs {} passing nodes and no "
      "failure.</p>\n",
      m.records, m.unreadable, m.min_nodes);
  out +=
      "<table>\n<tr><th>class</th><th>state</th><th>stack</th><th>images</th><th>nodes passed</th><th>nodes "
      "failed</th><th>runs pass/fail/inconclusive</th><th>first seen</th><th>last "
      "seen</th><th>why</th></tr>\n";
  for (const auto& r : m.rows) {
    std::vector<std::string> stack;
    for (const auto& [n, v] : r.stack) stack.push_back(n + " " + v);
    out += fmt::format(
        "<tr data-state=\"{0}\"><td>{1}</td><td "
        "style=\"color:{2};font-weight:bold\">{0}</td><td>{3}</td><td>{4}</td>"
        "<td>{5}</td><td>{6}</td><td>{7}/{8}/{9}</td><td>{10}</td><td>{11}</td><td>{12}</td></tr>\n",
        to_string(r.state), escape(r.hardware_class), state_color(r.state), lines(stack), lines(r.images),
        r.nodes_passed.size(), r.nodes_failed.size(), r.runs_passed, r.runs_failed, r.runs_inconclusive,
        escape(r.first_seen), escape(r.last_seen), escape(r.why));
  }
  out += "</table>\n";
  return out;
}

std::string render_matrix_page(const Matrix& m) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gpuqual compatibility "
         "matrix</title>\n"
         "<style>body{font-family:-apple-system,\"Segoe "
         "UI\",Helvetica,Arial,sans-serif;color:#24292f;margin:24px}"
         "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #d0d7de;padding:3px "
         "8px;text-align:left;"
         "vertical-align:top}th{background:#f6f8fa}.muted{color:#57606a;font-size:12px}</style></"
         "head><body>\n"
         "<h1>gpuqual compatibility matrix</h1>\n" +
         matrix_section(m) + "</body></html>\n";
}

}  // namespace gpuqual::html
