#pragma once
// Record strings (hostnames, labels, reasons, finding messages, metric names, container output)
// come from nodes and images gpuqual does not control. Each output format escapes them at one
// place, here (docs/output-formats.md): the terminal (table, summary line, progress, error
// messages), Markdown, JUnit XML and Prometheus labels; the HTML report's escape uses the same
// rule of what is hidden. JSON escapes by itself.
#include <cstddef>
#include <cstdio>
#include <string>
#include <string_view>

namespace gpuqual {

// A code point no output passes through as it is: C0 controls but tab and newline, DEL, C1
// controls, the bidirectional controls that reorder what is shown (Unicode UAX #9: U+061C,
// U+200E/F, U+202A..E, U+2066..9; the "Trojan Source" attack, CVE-2021-42574), the line and
// paragraph separators U+2028/9, and the noncharacters (U+FDD0..U+FDEF and every U+xFFFE/F),
// which XML 1.0 forbids in part (U+FFFE, U+FFFF) and no name needs.
bool is_hidden_code_point(char32_t cp);

// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629: no overlong form, no
// surrogate, at most U+10FFFF), its code point in `cp`; 0 when s[i] starts none.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp);

// Hidden code points become visible escapes (ESC -> "\x1b", U+009B -> "\u009b", U+202E ->
// "\u202e"), and so does each byte that is not well-formed UTF-8 ("\xff"); newline stays when
// `keep_newlines`, tab always. Other text, UTF-8 included, is unchanged. Idempotent: what it
// writes is left as it is by a second pass.
std::string escape_controls(std::string_view text, bool keep_newlines = true);

// One line for a terminal: newline, carriage return and tab become blanks (a multi-line reason
// reads as one line, and a name cannot start a forged line such as "gpuqual: PASS"), then
// escape_controls. Every table cell, summary and error line goes through it.
std::string terminal_line(std::string_view text);

// Writes terminal_line(text) and a newline to `out`: the way every command prints a line that
// carries record values (stderr error messages and notes included).
void print_line(std::FILE* out, std::string_view text);

// The entity of & < > " ' in XML and HTML text and attribute values alike ("&#39;" for the
// apostrophe, which HTML 4 lacks as a named entity); empty for any other character.
std::string_view markup_entity(char c);

// XML 1.0 character data and attribute values (JUnit): escape_controls (so every character left
// is one XML 1.0 allows, https://www.w3.org/TR/xml/#charsets), then & < > " ' as entities and
// newline and tab as character references (kept in attribute values too).
std::string escape_xml(std::string_view text);

// Inline Markdown text (a table cell, a list item, the summary): the text reads as itself, never
// as markup, in a CommonMark or GitHub-flavoured renderer (markdown-it-py with linkify, cmark-gfm
// with autolink: tests/integration/test_hostile_strings.py). Every ASCII punctuation
// character is backslash-escaped (CommonMark 0.31 section 2.4: emphasis, links, images, code,
// HTML, headings, lists, table pipes); line breaks become blanks; a zero-width space (U+200B)
// follows each '@' (no @mention, no e-mail autolink), the ':' of "://" and a word-initial
// "www" (no autolinked URL: the GFM autolink extension and linkify read the plain text);
// then escape_controls.
std::string escape_markdown(std::string_view text);

}  // namespace gpuqual
