#include "runner/html/html_escape.hpp"

#include "core/base/text_escape.hpp"

namespace gpuqual::html {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_sequence(s, i, cp);
    if (n == 0 || is_hidden_code_point(cp)) {
      out += kReplacement;
    } else if (const std::string_view entity = markup_entity(s[i]); n == 1 && !entity.empty()) {
      out += entity;
    } else {
      out.append(s.substr(i, n));
    }
    i += n == 0 ? 1 : n;
  }
  return out;
}

}  // namespace gpuqual::html
