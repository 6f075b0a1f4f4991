#pragma once
// The closed set of units a metric may carry. A record with any other unit is rejected, so
// a typo ("GBps") cannot silently make a metric incomparable with its baseline.
#include <span>
#include <string_view>

namespace gpuqual {

std::span<const std::string_view> known_units();
bool is_known_unit(std::string_view unit);

}  // namespace gpuqual
