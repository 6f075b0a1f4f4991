#include "core/diff_pair.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "core/gate.hpp"
#include "core/input_error.hpp"

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
  // The before-run ended when its record says; a record without an end time ended no earlier
  // than it started.
  const std::string& before_end = before.ended_at.empty() ? before.started_at : before.ended_at;
  const auto end_ms = parse_rfc3339_ms(before_end);
  const auto start_ms = parse_rfc3339_ms(after.started_at);
  if (end_ms && start_ms && *start_ms < *end_ms) {
    throw InputError(
        after_path, "$.started_at",
        fmt::format("the after-run started {}, before the before-run {} {} {}: the arguments are "
                    "swapped or the runs overlap (give BEFORE first, then AFTER)",
                    after.started_at, before_path, before.ended_at.empty() ? "started" : "ended",
                    before_end));
  }
}

}  // namespace gpuqual
