#include "core/base/dotted_version.hpp"

#include <charconv>

namespace gpuqual {

std::optional<DottedVersion> DottedVersion::parse(std::string_view text) {
  if (text.empty()) return std::nullopt;
  DottedVersion v;
  std::size_t start = 0;
  while (true) {
    const std::size_t dot = text.find('.', start);
    const std::string_view part =
        text.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part.empty() || part.size() > 9) return std::nullopt;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
    }
    int n = 0;
    std::from_chars(part.data(), part.data() + part.size(), n);
    v.parts.push_back(n);
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return v;
}

std::optional<DottedVersion> DottedVersion::from_cuda_int(int encoded) {
  if (encoded <= 0) return std::nullopt;
  return DottedVersion{{encoded / 1000, (encoded % 1000) / 10}};
}

std::string DottedVersion::str() const {
  std::string s;
  // Two appends, not `(i ? "." : "") + std::to_string(...)`: GCC 12 at -O3 reports a false
  // -Wrestrict inside std::operator+(const char*, std::string&&).
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) s += '.';
    s += std::to_string(parts[i]);
  }
  return s;
}

std::strong_ordering operator<=>(const DottedVersion& a, const DottedVersion& b) {
  const std::size_t n = std::max(a.parts.size(), b.parts.size());
  for (std::size_t i = 0; i < n; ++i) {
    const int x = i < a.parts.size() ? a.parts[i] : 0;
    const int y = i < b.parts.size() ? b.parts[i] : 0;
    if (x != y) return x <=> y;
  }
  return std::strong_ordering::equal;
}

std::optional<DottedVersion> parse_driver_version(std::string_view text) {
  auto v = DottedVersion::parse(text);
  if (!v || v->parts.size() < 2 || v->parts.size() > 3 || v->parts[0] < 100 || v->parts[0] > 9999)
    return std::nullopt;
  return v;
}

}  // namespace gpuqual
