#pragma once
// Seconds on the monotonic clock since `t0`: durations and time budgets, never wall-clock time
// (which an NTP step can move backwards in the middle of a check).
#include <chrono>

namespace gpuqual {

inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace gpuqual
