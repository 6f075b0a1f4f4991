#include "core/base/text_escape.hpp"

#include <fmt/format.h>

#include <cctype>

namespace gpuqual {

namespace {

constexpr std::string_view kZeroWidthSpace = "\xE2\x80\x8B";  // U+200B

bool is_bidi_control(char32_t cp) {
  return cp == 0x061C || cp == 0x200E || cp == 0x200F || (cp >= 0x202A && cp <= 0x202E) ||
         (cp >= 0x2066 && cp <= 0x2069);
}

bool is_noncharacter(char32_t cp) { return (cp >= 0xFDD0 && cp <= 0xFDEF) || (cp & 0xFFFE) == 0xFFFE; }

bool starts_with_nocase(std::string_view s, std::size_t i, std::string_view word) {
  if (s.size() - i < word.size()) return false;
  for (std::size_t k = 0; k < word.size(); ++k) {
    if (std::tolower(static_cast<unsigned char>(s[i + k])) != word[k]) return false;
  }
  return true;
}

}  // namespace

bool is_hidden_code_point(char32_t cp) {
  if (cp == '\t' || cp == '\n') return false;
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || is_bidi_control(cp) || cp == 0x2028 || cp == 0x2029 ||
         is_noncharacter(cp);
}

std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t& cp) {
  const auto b = static_cast<unsigned char>(s[i]);
  if (b < 0x80) {
    cp = b;
    return 1;
  }
  std::size_t n = 0;
  char32_t min = 0;
  if (b >= 0xC2 && b <= 0xDF) {
    n = 2, cp = b & 0x1F, min = 0x80;
  } else if (b >= 0xE0 && b <= 0xEF) {
    n = 3, cp = b & 0x0F, min = 0x800;
  } else if (b >= 0xF0 && b <= 0xF4) {
    n = 4, cp = b & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    const auto c = static_cast<unsigned char>(s[i + k]);
    if ((c & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (c & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

std::string escape_controls(std::string_view text, bool keep_newlines) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t cp = 0;
    const std::size_t n = utf8_sequence(text, i, cp);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(text[i]));
      ++i;
      continue;
    }
    if (cp == '\n' && !keep_newlines) {
      out += "\\x0a";
    } else if (!is_hidden_code_point(cp)) {
      out.append(text.substr(i, n));
    } else if (cp < 0x80) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned>(cp));
    } else {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(cp));
    }
    i += n;
  }
  return out;
}

std::string terminal_line(std::string_view text) {
  std::string flat(text);
  for (char& c : flat) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  return escape_controls(flat, false);
}

void print_line(std::FILE* out, std::string_view text) {
  std::fputs((terminal_line(text) + "\n").c_str(), out);
}

std::string_view markup_entity(char c) {
  switch (c) {
    case '&':
      return "&amp;";
    case '<':
      return "&lt;";
    case '>':
      return "&gt;";
    case '"':
      return "&quot;";
    case '\'':
      return "&#39;";
    default:
      return {};
  }
}

std::string escape_xml(std::string_view text) {
  const std::string safe = escape_controls(text, true);
  std::string out;
  out.reserve(safe.size());
  // Newline and tab as references: an attribute value keeps them (XML 1.0 section 3.3.3).
  for (char c : safe) {
    const std::string_view entity = markup_entity(c);
    if (!entity.empty()) {
      out += entity;
    } else if (c == '\n') {
      out += "&#10;";
    } else if (c == '\t') {
      out += "&#9;";
    } else {
      out += c;
    }
  }
  return out;
}

std::string escape_markdown(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 4);
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    const bool word_start = i == 0 || !std::isalnum(static_cast<unsigned char>(text[i - 1]));
    if (c == '\n' || c == '\r' || c == '\t') {
      out += ' ';
    } else if (word_start && starts_with_nocase(text, i, "www.")) {
      out += text.substr(i, 3);
      out += kZeroWidthSpace;
      i += 2;  // the '.' is escaped next
    } else if (c < 0x80 && std::ispunct(c)) {
      out += '\\';
      out += static_cast<char>(c);
      if (c == '@' || (c == ':' && text.substr(i + 1, 2) == "//")) out += kZeroWidthSpace;
    } else {
      out += static_cast<char>(c);
    }
  }
  return escape_controls(out, false);
}

}  // namespace gpuqual
