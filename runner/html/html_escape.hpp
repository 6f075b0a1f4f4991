#pragma once
// Escaping for the HTML report: every string that comes from a record, a baseline or a verdict
// (hostnames, image names, messages: they can hold anything) goes through html_escape before it
// reaches the page, in text and in attribute values alike.
#include <string>
#include <string_view>

namespace gpuqual::html {

// & < > " ' → entities; the code points core/base/text_escape.hpp hides (controls but tab and
// newline, bidi controls, noncharacters) → U+FFFD; invalid UTF-8 bytes → U+FFFD (a mailed
// report must not carry bytes a reader may mis-decode).
std::string escape(std::string_view text);

}  // namespace gpuqual::html
