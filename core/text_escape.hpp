#pragma once
// Record strings (hostnames, reasons, container output) come from the node and may hold control
// characters: an ESC would drive the operator's terminal (colours, cursor moves, a title change,
// a hidden line). Every terminal and Markdown output passes its text through here; JSON escapes
// by itself and the HTML report has its own escaping.
#include <string>
#include <string_view>

namespace gpuqual {

// C0 controls (but newline when `keep_newlines`, and tab), DEL and the C1 controls (U+0080 to
// U+009F, as UTF-8) become visible escapes: ESC -> "\x1b", U+009B -> "\u009b". Other text,
// UTF-8 included, is unchanged.
std::string escape_controls(std::string_view text, bool keep_newlines = true);

}  // namespace gpuqual
