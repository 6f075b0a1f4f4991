#include "core/base/utc_time.hpp"

#include <fmt/chrono.h>
#include <fmt/format.h>

#include <cstdio>
#include <ctime>

namespace gpuqual {

namespace {
std::tm utc_tm(std::chrono::system_clock::time_point t) {
  const std::time_t tt = std::chrono::system_clock::to_time_t(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);  // explicit UTC: fmt's time_point formatting changed zones across versions
  return tm;
}
}  // namespace

std::string utc_rfc3339(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y-%m-%dT%H:%M:%SZ}", utc_tm(t));
}

std::string utc_now_rfc3339() { return utc_rfc3339(std::chrono::system_clock::now()); }

std::string utc_compact(std::chrono::system_clock::time_point t) {
  return fmt::format("{:%Y%m%dT%H%M%SZ}", utc_tm(t));
}

namespace {

// `n` digits at `i`, their value no more than `max` (and no less than `min`).
bool digits_at(std::string_view t, std::size_t i, std::size_t n, int min, int max) {
  if (i + n > t.size()) return false;
  int v = 0;
  for (std::size_t k = i; k < i + n; ++k) {
    if (t[k] < '0' || t[k] > '9') return false;
    v = v * 10 + (t[k] - '0');
  }
  return v >= min && v <= max;
}

}  // namespace

bool is_rfc3339_text(std::string_view t) {
  const bool date = digits_at(t, 0, 4, 0, 9999) && t.size() > 19 && t[4] == '-' &&
                    digits_at(t, 5, 2, 1, 12) && t[7] == '-' && digits_at(t, 8, 2, 1, 31) &&
                    (t[10] == 'T' || t[10] == 't' || t[10] == ' ');
  const bool time = date && digits_at(t, 11, 2, 0, 23) && t[13] == ':' && digits_at(t, 14, 2, 0, 59) &&
                    t[16] == ':' && digits_at(t, 17, 2, 0, 60);
  if (!time) return false;
  std::size_t i = 19;
  if (t[i] == '.') {
    const std::size_t first = ++i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == first || i == t.size()) return false;
  }
  if (t[i] == 'Z' || t[i] == 'z') return i + 1 == t.size();
  return (t[i] == '+' || t[i] == '-') && i + 6 == t.size() && digits_at(t, i + 1, 2, 0, 23) &&
         t[i + 3] == ':' && digits_at(t, i + 4, 2, 0, 59);
}

std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, s = 0, used = 0;
  char sep = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d%c%2d:%2d:%2d%n", &y, &mo, &d, &sep, &h, &mi, &s, &used) != 7)
    return std::nullopt;
  if (sep != 'T' && sep != 't' && sep != ' ') return std::nullopt;
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::size_t i = static_cast<std::size_t>(used);
  double frac = 0;
  if (i < text.size() && text[i] == '.') {
    double scale = 0.1;
    ++i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') {
      frac += (text[i] - '0') * scale;
      scale /= 10;
      ++i;
    }
  }
  int offset_min = 0;
  if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
    ++i;
  } else if (i < text.size() && (text[i] == '+' || text[i] == '-')) {
    int oh = 0, om = 0, n = 0;
    if (std::sscanf(text.c_str() + i + 1, "%2d:%2d%n", &oh, &om, &n) != 2) return std::nullopt;
    offset_min = (text[i] == '-' ? -1 : 1) * (oh * 60 + om);
    i += 1 + static_cast<std::size_t>(n);
  } else {
    return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  const std::time_t t = timegm(&tm);
  return static_cast<std::int64_t>(t - offset_min * 60) * 1000 + static_cast<std::int64_t>(frac * 1000);
}

}  // namespace gpuqual
