#pragma once
// Console tables and lines that fit the output's width (docs/output-formats.md, "Width"): columns
// two spaces apart; when the natural widths do not fit, the text columns are wrapped first, then
// the widest of the others; when a text column would be narrower than 30 columns, the text
// columns go under their row instead ("    note: ..."). A cell is never cut, except one longer than
// kMaxCellLines lines, whose last line then says where the whole text is.
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

using TableRow = std::vector<std::string>;

// No width: every cell on one line at its natural width (plan tables, golden files of old).
inline constexpr std::size_t kNoWidthLimit = std::numeric_limits<std::size_t>::max();
inline constexpr std::size_t kMaxCellLines = 20;
// What the last line of a cell cut at kMaxCellLines says.
inline constexpr std::string_view kCutNote = "… (cut: in full in --format json, --markdown and the record)";

// Appends the table to `out`: the header, then one or more lines per row, each at most `width`
// display columns, without trailing blanks. `text_columns` (indices) wrap before the others.
// Cells are shown as given: the caller makes them one line (core/base/text_escape.hpp).
void layout_table(std::string& out, const TableRow& header, const std::vector<TableRow>& rows,
                  std::size_t width, const std::vector<std::size_t>& text_columns);

// Every line of `text` wrapped to `width` columns; a continuation line is indented 4 columns
// more than the line it continues ("  - a reason" goes on at column 6).
std::string wrap_lines(std::string_view text, std::size_t width);

}  // namespace gpuqual
