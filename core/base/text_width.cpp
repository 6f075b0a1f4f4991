#include "core/base/text_width.hpp"

#include <locale.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <charconv>
#include <cstdlib>
#include <cwchar>

namespace gpuqual {

namespace {

// The C library knows each code point's width (its tables follow Unicode's EastAsianWidth and
// general categories) in a UTF-8 locale; C.UTF-8 is built into glibc from 2.35 on, so it exists
// in a minimal image whatever the process's own locale is.
locale_t utf8_locale() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

struct Glyph {
  std::size_t bytes = 1;
  std::size_t columns = 1;
};

// The code point at s[i]: how many bytes it takes, how many columns it shows in. Called with
// the UTF-8 locale in use (see UseUtf8), or without one: then each code point is one column.
Glyph glyph_at(std::string_view s, std::size_t i, bool have_locale) {
  const auto lead = static_cast<unsigned char>(s[i]);
  if (lead < 0x80) return {};
  if (!have_locale) {
    Glyph g;
    while (i + g.bytes < s.size() && g.bytes < 4 &&
           (static_cast<unsigned char>(s[i + g.bytes]) & 0xC0) == 0x80)
      ++g.bytes;
    return g;
  }
  std::mbstate_t state{};
  wchar_t wc = 0;
  const std::size_t n = std::mbrtowc(&wc, s.data() + i, s.size() - i, &state);
  if (n == 0 || n == static_cast<std::size_t>(-1) || n == static_cast<std::size_t>(-2)) return {};
  const int w = wcwidth(wc);
  return {n, w < 0 ? 1u : static_cast<std::size_t>(w)};
}

// Switches this thread to the UTF-8 locale for as long as it lives.
class UseUtf8 {
 public:
  UseUtf8() : loc_(utf8_locale()), old_(loc_ ? uselocale(loc_) : nullptr) {}
  ~UseUtf8() {
    if (loc_) uselocale(old_);
  }
  UseUtf8(const UseUtf8&) = delete;
  UseUtf8& operator=(const UseUtf8&) = delete;
  bool ok() const { return loc_ != nullptr; }

 private:
  locale_t loc_;
  locale_t old_;
};

// Bytes of the longest prefix of at most `width` columns, and the columns it takes.
std::size_t prefix_bytes(std::string_view text, std::size_t width, const UseUtf8& utf8,
                         std::size_t* columns) {
  std::size_t i = 0, cols = 0;
  while (i < text.size()) {
    const Glyph g = glyph_at(text, i, utf8.ok());
    if (cols + g.columns > width) break;
    cols += g.columns;
    i += g.bytes;
  }
  if (columns) *columns = cols;
  return i;
}

}  // namespace

std::size_t display_width(std::string_view text) {
  const UseUtf8 utf8;
  std::size_t cols = 0;
  for (std::size_t i = 0; i < text.size();) {
    const Glyph g = glyph_at(text, i, utf8.ok());
    cols += g.columns;
    i += g.bytes;
  }
  return cols;
}

std::string_view prefix_of_width(std::string_view text, std::size_t width) {
  const UseUtf8 utf8;
  return text.substr(0, prefix_bytes(text, width, utf8, nullptr));
}

std::vector<std::string> wrap_to_width(std::string_view text, std::size_t first_width,
                                       std::size_t rest_width) {
  const UseUtf8 utf8;
  if (rest_width == 0) rest_width = first_width;
  std::vector<std::string> lines;
  std::string line;
  std::size_t line_cols = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t start = text.find_first_not_of(' ', pos);
    if (start == std::string_view::npos) break;
    const std::size_t end = std::min(text.find(' ', start), text.size());
    std::string_view word = text.substr(start, end - start);
    pos = end;
    std::size_t word_cols = display_width(word);
    std::size_t width = lines.empty() ? first_width : rest_width;
    if (!line.empty() && line_cols + 1 + word_cols <= width) {
      line += ' ';
      line += word;
      line_cols += 1 + word_cols;
      continue;
    }
    if (!line.empty()) lines.push_back(std::move(line));
    line.clear();
    width = lines.empty() ? first_width : rest_width;
    // A word wider than a line: whole lines of it, the rest starts the next line.
    while (word_cols > width) {
      std::size_t cols = 0;
      std::size_t n = prefix_bytes(word, width, utf8, &cols);
      if (n == 0) {  // a glyph wider than the whole width: it takes a line of its own
        n = glyph_at(word, 0, utf8.ok()).bytes;
        cols = width;
      }
      lines.emplace_back(word.substr(0, n));
      word.remove_prefix(n);
      word_cols -= std::min(word_cols, cols);
      width = rest_width;
    }
    line = std::string(word);
    line_cols = word_cols;
  }
  if (!line.empty() || lines.empty()) lines.push_back(std::move(line));
  return lines;
}

std::string shorten_to_width(std::string_view text, std::size_t width) {
  if (display_width(text) <= width) return std::string(text);
  if (width == 0) return "";
  std::string out(prefix_of_width(text, width - 1));
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out + "\u2026";
}

std::optional<std::size_t> terminal_columns(int fd) {
  winsize ws{};
  if (isatty(fd) && ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  return std::nullopt;
}

std::size_t output_width(int fd) {
  std::size_t width = 0;
  if (const char* env = std::getenv("COLUMNS"); env && *env) {
    const std::string_view s(env);
    std::size_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size() && v > 0) width = v;
  }
  if (width == 0) width = terminal_columns(fd).value_or(kDefaultOutputWidth);
  return std::max(width, kMinOutputWidth);
}

}  // namespace gpuqual
