#include "core/base/text_table.hpp"

#include <algorithm>
#include <cctype>

#include "core/base/text_width.hpp"

namespace gpuqual {

namespace {

// A text column narrower than this reads as a word list: it goes under its rows instead.
constexpr std::size_t kMinTextColumn = 30;

// Narrows the widest of `columns` above `floor` by one column at a time until `excess` is gone
// or none is left above its floor.
void shrink(std::vector<std::size_t>& widths, const std::vector<std::size_t>& natural,
            const std::vector<std::size_t>& columns, std::size_t floor, std::size_t& excess) {
  while (excess > 0) {
    std::size_t widest = widths.size();
    for (std::size_t c : columns) {
      if (widths[c] > std::min(floor, natural[c]) && (widest == widths.size() || widths[c] > widths[widest]))
        widest = c;
    }
    if (widest == widths.size()) return;
    --widths[widest];
    --excess;
  }
}

std::vector<std::size_t> natural_widths(const TableRow& header, const std::vector<TableRow>& rows) {
  std::vector<std::size_t> natural(header.size(), 0);
  auto measure = [&](const TableRow& r) {
    for (std::size_t i = 0; i < r.size() && i < natural.size(); ++i)
      natural[i] = std::max(natural[i], display_width(r[i]));
  };
  measure(header);
  for (const auto& r : rows) measure(r);
  return natural;
}

// The widths of the first `natural.size()` columns in `width`.
std::vector<std::size_t> column_widths(const std::vector<std::size_t>& natural, std::size_t width,
                                       const std::vector<std::size_t>& text_columns) {
  std::vector<std::size_t> widths = natural;
  std::size_t total = 2 * (widths.size() - 1);
  for (std::size_t w : widths) total += w;
  if (width == kNoWidthLimit || total <= width) return widths;
  std::size_t excess = total - width;
  std::vector<std::size_t> all(widths.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<std::size_t> text, others;
  for (std::size_t i : all) {
    (std::find(text_columns.begin(), text_columns.end(), i) == text_columns.end() ? others : text)
        .push_back(i);
  }
  // Text columns first, down to 20 columns, then to 14 (a name broken across lines reads worse
  // than a sentence); then names down to 12; then text down to 10; then every column down to 6
  // (a short word, a GPU index, a status), and to 2 (a wide character must still fit).
  shrink(widths, natural, text, 20, excess);
  shrink(widths, natural, text, 14, excess);
  shrink(widths, natural, others, 12, excess);
  shrink(widths, natural, text, 10, excess);
  shrink(widths, natural, all, 6, excess);
  shrink(widths, natural, all, 2, excess);
  return widths;
}

// A cell's lines; those after the first start `indent` columns in (the first column's: a wrapped
// record string never starts a line of its own, such as a forged "gpuqual: PASS").
std::vector<std::string> cell_lines(const std::string& cell, std::size_t width, std::size_t indent = 0) {
  indent = width > indent ? indent : 0;
  std::vector<std::string> lines = wrap_to_width(cell, width, width - indent);
  for (std::size_t k = 1; k < lines.size(); ++k) lines[k].insert(0, indent, ' ');
  if (lines.size() <= kMaxCellLines) return lines;
  std::vector<std::string> note = wrap_to_width(kCutNote, width);
  lines.resize(kMaxCellLines - std::min(note.size(), kMaxCellLines - 1));
  for (std::string& l : note) lines.push_back(std::move(l));
  return lines;
}

// The columns that stay in the table: all, or, when a text column would be squeezed narrower
// than a phrase, the others (the text then goes under each row, at the full width).
std::vector<std::size_t> kept_columns(const std::vector<std::size_t>& natural,
                                      const std::vector<std::size_t>& widths,
                                      const std::vector<std::size_t>& text_columns) {
  const auto is_text = [&](std::size_t i) {
    return std::find(text_columns.begin(), text_columns.end(), i) != text_columns.end();
  };
  const bool squeezed = std::any_of(text_columns.begin(), text_columns.end(), [&](std::size_t i) {
    return i < widths.size() && widths[i] < natural[i] && widths[i] < kMinTextColumn;
  });
  std::vector<std::size_t> kept;
  for (std::size_t i = 0; i < natural.size(); ++i) {
    if (!squeezed || !is_text(i)) kept.push_back(i);
  }
  if (kept.empty()) {  // nothing but text: it stays a table
    for (std::size_t i = 0; i < natural.size(); ++i) kept.push_back(i);
  }
  return kept;
}

// One row's lines: its kept cells side by side, each wrapped to its column.
void emit_row(std::string& out, const TableRow& r, const std::vector<std::size_t>& kept,
              const std::vector<std::size_t>& widths) {
  std::vector<std::vector<std::string>> cells(kept.size());
  std::size_t height = 1;
  for (std::size_t i = 0; i < kept.size(); ++i) {
    // The first column's continuation lines start 2 columns in: a wrapped record string never
    // starts a line of its own, such as a forged "gpuqual: PASS".
    cells[i] = cell_lines(kept[i] < r.size() ? r[kept[i]] : std::string(), widths[i], i == 0 ? 2 : 0);
    height = std::max(height, cells[i].size());
  }
  for (std::size_t k = 0; k < height; ++k) {
    std::string line;
    for (std::size_t i = 0; i < kept.size(); ++i) {
      const std::string& text = k < cells[i].size() ? cells[i][k] : std::string();
      line += text;
      if (i + 1 < kept.size()) line.append(widths[i] - std::min(widths[i], display_width(text)) + 2, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  }
}

// The cells of the columns that went under the row: "    note: <text>", wrapped to the width.
void emit_below(std::string& out, const TableRow& header, const TableRow& r,
                const std::vector<std::size_t>& kept, std::size_t width) {
  for (std::size_t j = 0; j < header.size() && j < r.size(); ++j) {
    if (r[j].empty() || std::find(kept.begin(), kept.end(), j) != kept.end()) continue;
    std::string label = header[j];
    std::transform(label.begin(), label.end(), label.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    const std::vector<std::string> lines = wrap_to_width(label + ": " + r[j], width - 4, width - 6);
    for (std::size_t k = 0; k < lines.size(); ++k) out += std::string(k == 0 ? 4 : 6, ' ') + lines[k] + "\n";
  }
}

}  // namespace

void layout_table(std::string& out, const TableRow& header, const std::vector<TableRow>& rows,
                  std::size_t width, const std::vector<std::size_t>& text_columns) {
  if (header.empty()) return;
  const std::vector<std::size_t> natural = natural_widths(header, rows);
  std::vector<std::size_t> widths = column_widths(natural, width, text_columns);
  const std::vector<std::size_t> kept = kept_columns(natural, widths, text_columns);
  if (kept.size() < header.size()) {
    std::vector<std::size_t> kept_natural;
    for (std::size_t i : kept) kept_natural.push_back(natural[i]);
    widths = column_widths(kept_natural, width, {});
  }
  emit_row(out, header, kept, widths);
  for (const auto& r : rows) {
    emit_row(out, r, kept, widths);
    emit_below(out, header, r, kept, width);
  }
}

std::string wrap_lines(std::string_view text, std::size_t width) {
  std::string out;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find('\n', pos);
    const std::string_view line = text.substr(pos, (nl == std::string_view::npos ? text.size() : nl) - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    if (width == kNoWidthLimit || display_width(line) <= width) {
      out.append(line);
    } else {
      const std::size_t lead = std::min({line.find_first_not_of(' '), line.size(), width / 2});
      const std::size_t indent = std::min(lead + 4, width / 2);
      const std::vector<std::string> wrapped = wrap_to_width(line.substr(lead), width - lead, width - indent);
      for (std::size_t k = 0; k < wrapped.size(); ++k) {
        if (k > 0) out += '\n';
        out.append(k == 0 ? lead : indent, ' ');
        out += wrapped[k];
      }
    }
    if (nl != std::string_view::npos) out += '\n';
  }
  return out;
}

}  // namespace gpuqual
