#pragma once
// Wall-clock time as the run record writes it (RFC 3339, UTC, seconds), and read back.
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gpuqual {

std::string utc_rfc3339(std::chrono::system_clock::time_point t);
// Same format, now: "2026-11-30T12:03:11Z".
std::string utc_now_rfc3339();
// Compact form for file names: 20260130T142501Z.
std::string utc_compact(std::chrono::system_clock::time_point t);
// RFC 3339 ("2026-11-30T12:00:00Z", fractional seconds and ±hh:mm offsets too) → Unix ms.
std::optional<std::int64_t> parse_rfc3339_ms(const std::string& text);

// `text` is an RFC 3339 date-time exactly as the run record's schema states it
// (schemas/run-record.v1.schema.json, $defs/rfc3339): YYYY-MM-DD, 'T' (or 't' or ' '),
// hh:mm:ss (a leap second 60 allowed), optional fraction, 'Z' or a ±hh:mm offset, nothing else.
// Stricter than parse_rfc3339_ms (which sscanf reads), so that the reader and the schema agree.
bool is_rfc3339_text(std::string_view text);

}  // namespace gpuqual
