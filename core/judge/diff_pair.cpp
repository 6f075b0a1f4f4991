#include "core/judge/diff_pair.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

// The same file under two names (a link, `./x` and `x`), or two files with the same bytes.
bool same_file_or_bytes(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::equivalent(a, b, ec) && !ec) return true;
  const auto size_a = fs::file_size(a, ec);
  if (ec) return false;
  const auto size_b = fs::file_size(b, ec);
  if (ec || size_a != size_b) return false;
  std::ifstream fa(a, std::ios::binary), fb(b, std::ios::binary);
  if (!fa || !fb) return false;
  return std::equal(std::istreambuf_iterator<char>(fa), std::istreambuf_iterator<char>(),
                    std::istreambuf_iterator<char>(fb), std::istreambuf_iterator<char>());
}

std::string shown(const std::string& time) { return time.empty() ? "(no time)" : time; }

}  // namespace

void require_before_after(const std::string& before_path, const RunRecord& before,
                          const std::string& after_path, const RunRecord& after) {
  const bool same_run_id = !before.run_id.empty() && before.run_id == after.run_id;
  if (same_run_id || same_file_or_bytes(before_path, after_path)) {
    throw InputError(
        after_path, same_run_id ? "$.run_id" : "",
        fmt::format("the same run as the before-record {} (run_id {}, started {} and {}): give one "
                    "record from before the change and one from after it",
                    before_path, shown(before.run_id), shown(before.started_at), shown(after.started_at)));
  }
  // The before-run ended when its record says; a record without a readable end time ended no
  // earlier than it started.
  const bool end_read = parse_rfc3339_ms(before.ended_at).has_value();
  const std::string& before_end = end_read ? before.ended_at : before.started_at;
  const auto end_ms = parse_rfc3339_ms(before_end);
  const auto start_ms = parse_rfc3339_ms(after.started_at);
  // A pair that cannot be put in order is never judged: swapped arguments with an unreadable
  // time would pass a regression as an improvement (docs/diff.md, "Records that belong together").
  if (!end_ms || !start_ms) {
    const bool after_unread = !start_ms;
    throw InputError(after_unread ? after_path : before_path, "$.started_at",
                     fmt::format("{} is not an RFC 3339 time: the before-run and the after-run cannot be "
                                 "put in order (before {} {}, after started {})",
                                 shown(after_unread ? after.started_at : before.started_at), before_path,
                                 shown(before_end), shown(after.started_at)));
  }
  if (*start_ms < *end_ms) {
    throw InputError(
        after_path, "$.started_at",
        fmt::format("the after-run started {}, before the before-run {} {} {}: the arguments are "
                    "swapped or the runs overlap (give BEFORE first, then AFTER)",
                    after.started_at, before_path, end_read ? "ended" : "started", before_end));
  }
}

}  // namespace gpuqual
