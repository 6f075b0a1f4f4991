#include "core/verdict/noise_model_options.hpp"

#include <cmath>
#include <cstdlib>

namespace gpuqual {

namespace {

// A plain decimal number, optionally followed by blanks and a '%'. `percent` says whether the
// sign was there.
std::optional<double> number(const std::string& text, bool& percent) {
  const char* begin = text.c_str();
  char* end = nullptr;
  const double v = std::strtod(begin, &end);
  if (end == begin || !std::isfinite(v)) return std::nullopt;
  while (*end == ' ') ++end;
  percent = *end == '%';
  if (percent) ++end;
  if (*end != '\0') return std::nullopt;
  return v;
}

}  // namespace

std::optional<double> parse_drop_percent(const std::string& text) {
  bool percent = false;
  auto v = number(text, percent);
  if (!v || *v < 0 || *v >= 100) return std::nullopt;
  return *v / 100.0;
}

std::optional<double> parse_confidence(const std::string& text) {
  bool percent = false;
  auto v = number(text, percent);
  if (!v) return std::nullopt;
  const double c = percent ? *v / 100.0 : *v;
  if (!(c > 0 && c < 1)) return std::nullopt;
  return c;
}

}  // namespace gpuqual
