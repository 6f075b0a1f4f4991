#pragma once
// How wide text is on a terminal, and how to make it fit (docs/output-formats.md, "Width"):
// every table, header and summary line gpuqual prints on stdout, and the live progress line on
// stderr, is at most the output's width, counted in display columns of UTF-8, not bytes.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpuqual {

// The narrowest width gpuqual lays text out for: below it a table of nine columns cannot keep
// one column of text each.
inline constexpr std::size_t kMinOutputWidth = 40;
// The width when the output is not a terminal and COLUMNS does not say (a Job log, a pipe).
inline constexpr std::size_t kDefaultOutputWidth = 100;

// Columns `text` takes on a terminal: a wide (East Asian Wide or Fullwidth) code point 2, a
// combining mark or other zero-width one 0, the rest 1 (the C library's wcwidth() in the
// C.UTF-8 locale); a byte that is not UTF-8, or a code point wcwidth does not know, 1.
std::size_t display_width(std::string_view text);

// The longest prefix of `text` that is at most `width` columns, cut at a code point boundary.
std::string_view prefix_of_width(std::string_view text, std::size_t width);

// `text` in lines of at most `first_width` columns for the first and `rest_width` (0: the same)
// for the others: broken at blanks, a word longer than a line split where it reaches the width.
// Blanks collapse to one between words and go at a break; "" is one empty line.
std::vector<std::string> wrap_to_width(std::string_view text, std::size_t first_width,
                                       std::size_t rest_width = 0);

// `text` if it fits in `width` columns, else its longest prefix that fits with "…" after it.
std::string shorten_to_width(std::string_view text, std::size_t width);

// The columns of the terminal on `fd` (TIOCGWINSZ); nothing when `fd` is not a terminal or it
// does not say.
std::optional<std::size_t> terminal_columns(int fd);

// The width tables and summaries on `fd` are laid out for: $COLUMNS when it is a positive
// number, else terminal_columns(fd), else kDefaultOutputWidth; never below kMinOutputWidth.
std::size_t output_width(int fd);

}  // namespace gpuqual
