#include "core/rules/memtest_coverage.hpp"

#include <fmt/format.h>

namespace gpuqual {

namespace {

double mib(std::uint64_t bytes) { return static_cast<double>(bytes) / (1u << 20); }

}  // namespace

MemtestCoverage judge_memtest_coverage(const MemtestCoverageInput& in) {
  MemtestCoverage c;
  if (in.tested_bytes == 0) {
    c.status = Status::error;
    c.reason = fmt::format("tested 0 bytes (target {:.0f} MiB{})", mib(in.target_bytes),
                           in.allocation_note.empty() ? "" : ": " + in.allocation_note);
    return c;
  }
  if (in.tested_bytes < in.target_bytes) {
    c.status = Status::error;
    c.reason = fmt::format("tested {:.0f} of {:.0f} MiB{}", mib(in.tested_bytes), mib(in.target_bytes),
                           in.allocation_note.empty() ? "" : ": " + in.allocation_note);
    return c;
  }
  if (in.capped || in.total_bytes == 0) return c;
  const double share = static_cast<double>(in.tested_bytes) / static_cast<double>(in.total_bytes);
  const double wanted = in.fraction_of_free * (1.0 - kMemtestReservedAllowance);
  if (share < wanted) {
    const std::uint64_t held = in.total_bytes > in.free_bytes ? in.total_bytes - in.free_bytes : 0;
    c.status = Status::warn;
    c.reason = fmt::format(
        "tested {:.0f} MiB, {:.1f} % of the GPU's {:.0f} MiB (configured {:.0f} % of free): {:.0f} MiB was "
        "not free "
        "at the start (another process holds GPU memory?) and went untested",
        mib(in.tested_bytes), share * 100, mib(in.total_bytes), in.fraction_of_free * 100, mib(held));
  }
  return c;
}

}  // namespace gpuqual
