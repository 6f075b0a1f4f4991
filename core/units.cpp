#include "core/units.hpp"

#include <algorithm>
#include <array>

namespace gpuqual {

namespace {
constexpr std::array<std::string_view, 16> kUnits = {
    "TFLOP/s", "TOP/s", "GB/s", "s", "ms", "us", "ns", "bytes",
    "count",   "ratio", "%",    "W", "MHz", "celsius", "errors", "passes"};
}

std::span<const std::string_view> known_units() { return kUnits; }

bool is_known_unit(std::string_view unit) {
  return std::find(kUnits.begin(), kUnits.end(), unit) != kUnits.end();
}

}  // namespace gpuqual
