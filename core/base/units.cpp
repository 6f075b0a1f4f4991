#include "core/base/units.hpp"

#include <algorithm>
#include <array>

namespace gpuqual {

namespace {
// Gb/s: link rates (InfiniBand, Ethernet), bits not bytes. tokens/s and 1/s: what production
// images report about themselves (container probe metric lines, docs/container-probes.md).
constexpr std::array<std::string_view, 19> kUnits = {
    "TFLOP/s", "TOP/s", "GB/s", "s",       "ms",     "us",     "ns",   "bytes",    "count", "ratio",
    "%",       "W",     "MHz",  "celsius", "errors", "passes", "Gb/s", "tokens/s", "1/s"};
}  // namespace

std::span<const std::string_view> known_units() { return kUnits; }

bool is_known_unit(std::string_view unit) {
  return std::find(kUnits.begin(), kUnits.end(), unit) != kUnits.end();
}

}  // namespace gpuqual
