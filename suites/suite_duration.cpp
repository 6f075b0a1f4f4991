#include "suites/suite_duration.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>

namespace gpuqual {

std::optional<double> parse_duration_s(std::string_view text) {
  if (text.empty()) return std::nullopt;
  double total = 0;
  const char* p = text.data();
  const char* end = text.data() + text.size();
  bool any = false;
  while (p < end) {
    if (*p == '-' || *p == '+') return std::nullopt;  // from_chars would take a '-'
    double value = 0;
    auto r = std::from_chars(p, end, value, std::chars_format::fixed);
    if (r.ec != std::errc() || !std::isfinite(value)) return std::nullopt;
    p = r.ptr;
    double unit = 1;
    if (p < end) {
      switch (*p) {
        case 's':
          unit = 1;
          break;
        case 'm':
          unit = 60;
          break;
        case 'h':
          unit = 3600;
          break;
        case 'd':
          unit = 86400;
          break;
        default:
          return std::nullopt;
      }
      ++p;
    } else if (any) {
      return std::nullopt;  // "1h30": the unit of the last part is ambiguous
    }
    total += value * unit;
    any = true;
  }
  if (!any || !std::isfinite(total) || total > 366.0 * 86400) return std::nullopt;
  return total;
}

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) seconds = 0;
  if (seconds < 60) {
    return seconds < 10 && seconds != std::floor(seconds) ? fmt::format("{:.1f}s", seconds)
                                                          : fmt::format("{:.0f}s", seconds);
  }
  auto s = static_cast<long long>(std::llround(seconds));
  const long long d = s / 86400, h = (s / 3600) % 24, m = (s / 60) % 60, sec = s % 60;
  if (d > 0) return h ? fmt::format("{}d{}h", d, h) : fmt::format("{}d", d);
  if (h > 0) return m ? fmt::format("{}h{:02}m", h, m) : fmt::format("{}h", h);
  return sec ? fmt::format("{}m{:02}s", m, sec) : fmt::format("{}m", m);
}

}  // namespace gpuqual
