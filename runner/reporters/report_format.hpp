#pragma once
// Small formatting helpers shared by the reporters, so every format shows numbers, GPUs and
// deltas the same way.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/text_table.hpp"
#include "core/verdict/verdict.hpp"

namespace gpuqual::report {

std::string value(const std::optional<double>& v);    // "770", "4812.5", "-" when absent
std::string gpu(const std::optional<int>& gpu);       // "0" or "node"
std::string gpu(const MetricRow& row);                // "0", "node", or "1 MIG-4f1c2a9e" for a slice
std::string gpu(const CheckRow& row);                 // the same for a check's row
std::string delta(const std::optional<double>& pct);  // "+0.2%", "-" when absent
std::string allowed(const MetricRow& row);            // "-5.0%" (higher is better) or "+5.0%"

// Console tables: left-aligned columns two spaces apart, appended to `out`; the last column is
// not padded (no trailing blanks in a Job log). No line is wider than `width` display columns:
// the `text_columns` wrap first, then the others (core/base/text_table.hpp).
using Row = std::vector<std::string>;
void aligned_table(std::string& out, const Row& header, const std::vector<Row>& rows,
                   std::size_t width = kNoWidthLimit, const std::vector<std::size_t>& text_columns = {});
// A Markdown table cell: escape_markdown (core/base/text_escape.hpp: no markup, link, image or mention
// gets through, line breaks as blanks); "" becomes "-".
std::string md_cell(std::string_view s);

}  // namespace gpuqual::report
