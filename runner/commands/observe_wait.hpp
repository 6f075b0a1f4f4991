#pragma once
// `gpuqual observe --wait` (docs/observe.md): the window starts when the command does and the
// command sleeps until it has ended, so the policy's `window:` (not a pipeline's own delay)
// decides how long the canary soaks. The sleep is cut into short slices so that SIGTERM (a
// pipeline's deadline, a pod's eviction) or SIGINT ends it at once, with one line instead of a
// verdict on a window that did not end.
#include <atomic>
#include <chrono>
#include <functional>
#include <string>

#include "core/judge/observe_series.hpp"

namespace gpuqual {

enum class WaitEnd { elapsed, stopped };

// Sleeps `total` by the steady clock, waking every `slice` to look at `stop`: returns stopped
// as soon as it is set. Calls `progress(left)` each time another `every` of the wait has passed
// (never at the start: the caller says what it waits for).
WaitEnd wait_or_stop(std::chrono::milliseconds total, const std::atomic<bool>& stop,
                     std::chrono::milliseconds every,
                     const std::function<void(std::chrono::milliseconds left)>& progress,
                     std::chrono::milliseconds slice = std::chrono::milliseconds(200));

// While it lives, SIGTERM and SIGINT set flag() (and signal() says which) instead of ending
// the process; the previous handlers are back once it is destroyed. One at a time.
class StopOnSignal {
 public:
  StopOnSignal();
  ~StopOnSignal();
  StopOnSignal(const StopOnSignal&) = delete;
  StopOnSignal& operator=(const StopOnSignal&) = delete;
  const std::atomic<bool>& flag() const;
  int signal() const;
};

// 7200 → "2h", 5400 → "1h30m", 20 → "20s", 65 → "1m5s" (whole seconds).
std::string duration_text(double seconds);

// The window of --wait: `window_text` long, starting now (or $GPUQUAL_NOW), sampled every
// `step_text`. InputError naming the flag, as resolve_window.
observe::Window window_from_now(const std::string& window_text, const std::string& step_text);

struct WaitPlan {
  observe::Window window;
  // When the window started by the steady clock: the time spent since (checking Prometheus)
  // is not waited again.
  std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::string source;   // why this length: "the policy's window" or "--window"
  double settle_s = 0;  // after the window: time for the last scrape to land in Prometheus
  std::chrono::milliseconds progress_every = std::chrono::minutes(5);
};

// Says on stderr what it waits for, waits the window and the settle time (a progress line each
// `progress_every`), and returns elapsed; stopped by SIGTERM/SIGINT it prints the one line that
// says the window did not end and returns stopped.
WaitEnd wait_for_window(const WaitPlan& plan);

}  // namespace gpuqual
