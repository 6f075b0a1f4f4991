#pragma once
// Durations as people write them on a command line or in a suite: "90" or "90s", "15m", "2h",
// "1h30m", "1.5h", "1d". Used by --duration and by a suite's default_duration.
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

// Seconds, or nullopt when `text` is not a duration (empty, negative, unknown unit, overflow).
std::optional<double> parse_duration_s(std::string_view text);
// Compact and exact enough for people: 45s, 1m30s, 2h, 2h05m, 1d2h.
std::string format_duration(double seconds);

}  // namespace gpuqual
