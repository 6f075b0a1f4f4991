#include "runner/reporters/report_format.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "core/base/text_case.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/text_table.hpp"

namespace gpuqual::report {

// Five significant digits: 771.23 TFLOP/s, 4812.5 GB/s, 52.306 GB/s; enough to see a 0.1 % change.
std::string value(const std::optional<double>& v) { return v ? fmt::format("{:.5g}", *v) : "-"; }

std::string gpu(const std::optional<int>& g) { return g ? std::to_string(*g) : "node"; }

namespace {

// "1 MIG-4f1c2a9e": the UUID's first 8 hex digits tell a GPU's slices apart (and, as a prefix,
// CUDA_VISIBLE_DEVICES takes them); JSON and HTML keep the whole UUID.
std::string gpu_and_slice(const std::optional<int>& g, const std::string& mig_device) {
  return mig_device.empty() ? gpu(g) : gpu(g) + " " + mig_device.substr(0, 12);
}

}  // namespace

std::string gpu(const MetricRow& row) { return gpu_and_slice(row.gpu, row.mig_device); }

std::string gpu(const CheckRow& row) { return gpu_and_slice(row.gpu, row.mig_device); }

std::string delta(const std::optional<double>& pct) { return pct ? fmt::format("{:+.1f}%", *pct) : "-"; }

std::string allowed(const MetricRow& row) {
  if (!row.expected) return "-";
  return fmt::format("{}{:.1f}%", row.direction == Direction::higher ? "-" : "+", row.allowed_drop_pct);
}

void aligned_table(std::string& out, const Row& header, const std::vector<Row>& cells, std::size_t width,
                   const std::vector<std::size_t>& text_columns) {
  // Each cell one line with its controls shown (core/base/text_escape.hpp), measured as shown: a name
  // cannot forge a line. This is the one place table cells are sanitized.
  std::vector<Row> rows = cells;
  for (auto& r : rows) {
    for (auto& c : r) c = terminal_line(c);
  }
  layout_table(out, header, rows, width, text_columns);
}

std::string md_cell(std::string_view s) {
  std::string out = escape_markdown(s);
  return out.empty() ? std::string("-") : out;
}

}  // namespace gpuqual::report
