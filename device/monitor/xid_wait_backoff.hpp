#pragma once
// The pause the Xid watch (device/monitor/xid_monitor.hpp) takes after a failed nvmlEventSetWait_v2
// before it waits again. NVML answers a lost GPU (NVML_ERROR_GPU_IS_LOST) and other errors at
// once, without waiting out the timeout, so a loop that simply waited again would spin a core
// for the rest of the run. The pause doubles with each failure in a row, from `first_ms` up to
// `max_ms`, and is back to none after a wait that answered (an event or its timeout). Plain
// arithmetic, tested without a clock (tests/unit/test_xid_wait_backoff.cpp).
#include <algorithm>
#include <cstdint>

namespace gpuqual {

class XidWaitBackoff {
 public:
  static constexpr unsigned kFirstMs = 50;
  static constexpr unsigned kMaxMs = 5000;

  explicit XidWaitBackoff(unsigned first_ms = kFirstMs, unsigned max_ms = kMaxMs)
      : first_ms_(std::max(1u, first_ms)), max_ms_(std::max(first_ms_, max_ms)) {}

  // The pause in milliseconds before the next wait, after a wait that failed (true) or that
  // answered (false: no pause, and the next failure starts from first_ms again).
  unsigned after_wait(bool failed) {
    if (!failed) {
      in_a_row_ = 0;
      return 0;
    }
    ++in_a_row_;
    ++failures_;
    std::uint64_t pause = first_ms_;
    for (unsigned i = 1; i < in_a_row_ && pause < max_ms_; ++i) pause *= 2;
    return static_cast<unsigned>(std::min<std::uint64_t>(pause, max_ms_));
  }

  unsigned failures_in_a_row() const { return in_a_row_; }
  std::uint64_t failures() const { return failures_; }  // every failed wait since construction

 private:
  unsigned first_ms_;
  unsigned max_ms_;
  unsigned in_a_row_ = 0;
  std::uint64_t failures_ = 0;
};

}  // namespace gpuqual
