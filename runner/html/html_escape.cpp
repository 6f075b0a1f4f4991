#include "runner/html/html_escape.hpp"

#include "core/text_escape.hpp"

namespace gpuqual::html {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    char32_t cp = 0;
    const std::size_t n = utf8_sequence(s, i, cp);
    if (n == 0 || is_hidden_code_point(cp)) {
      out += kReplacement;
      i += n == 0 ? 1 : n;
      continue;
    }
    if (n > 1) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += static_cast<char>(c);
    }
    ++i;
  }
  return out;
}

}  // namespace gpuqual::html
