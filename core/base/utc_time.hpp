#pragma once
// Wall-clock time as the run record writes it (RFC 3339, UTC, seconds), and read back.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace gpuqual {

std::string utc_rfc3339(std::chrono::system_clock::time_point t);
// Same format, now: "2026-11-30T12:03:11Z".
std::string utc_now_rfc3339();
// Compact form for file names: 20260130T142501Z.
std::string utc_compact(std::chrono::system_clock::time_point t);
// RFC 3339 ("2026-11-30T12:00:00Z", fractional seconds and ±hh:mm offsets too) → Unix ms.
std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text);

}  // namespace gpuqual
