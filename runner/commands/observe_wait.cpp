#include "runner/commands/observe_wait.hpp"

#include <fmt/format.h>
#include <signal.h>

#include <cmath>
#include <thread>

#include "core/base/text_escape.hpp"
#include "core/judge/observe_gpus.hpp"
#include "runner/commands/observe_inputs.hpp"

namespace gpuqual {

namespace {

using observe::utc_text;

// A signal handler may only touch lock-free atomics (C++20 [support.signal]).
std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free);

struct sigaction g_old_term, g_old_int;

// C linkage ignores the namespace: the name must be unique in the program (runner/run has its own).
extern "C" void gpuqual_observe_wait_on_stop(int sig) {
  g_signal.store(sig);
  g_stop.store(true);
}

const char* signal_text(int sig) {
  return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal";
}

}  // namespace

WaitEnd wait_or_stop(std::chrono::milliseconds total, const std::atomic<bool>& stop,
                     std::chrono::milliseconds every,
                     const std::function<void(std::chrono::milliseconds left)>& progress,
                     std::chrono::milliseconds slice) {
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now(), end = start + total;
  clock::time_point next_progress = start + every;
  for (clock::time_point now = start; now < end; now = clock::now()) {
    if (stop.load()) return WaitEnd::stopped;
    if (every.count() > 0 && now >= next_progress) {
      if (progress) progress(std::chrono::duration_cast<std::chrono::milliseconds>(end - now));
      next_progress += every;
    }
    // Never past the end, nor past the next look at the flag: a stop is seen within a slice.
    std::this_thread::sleep_for(std::min<clock::duration>(slice, end - now));
  }
  return stop.load() ? WaitEnd::stopped : WaitEnd::elapsed;
}

StopOnSignal::StopOnSignal() {
  g_stop.store(false);
  g_signal.store(0);
  struct sigaction sa {};
  sa.sa_handler = gpuqual_observe_wait_on_stop;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: nothing here blocks in a restartable call anyway
  sigaction(SIGTERM, &sa, &g_old_term);
  sigaction(SIGINT, &sa, &g_old_int);
}

StopOnSignal::~StopOnSignal() {
  sigaction(SIGTERM, &g_old_term, nullptr);
  sigaction(SIGINT, &g_old_int, nullptr);
}

const std::atomic<bool>& StopOnSignal::flag() const { return g_stop; }

int StopOnSignal::signal() const { return g_signal.load(); }

std::string duration_text(double seconds) {
  const long s = std::lround(seconds);
  const long h = s / 3600, m = s % 3600 / 60, sec = s % 60;
  std::string out;
  if (h > 0) out += fmt::format("{}h", h);
  if (m > 0) out += fmt::format("{}m", m);
  if (sec > 0 || out.empty()) out += fmt::format("{}s", sec);
  return out;
}

observe::Window window_from_now(const std::string& window_text, const std::string& step_text) {
  // resolve_window checks the flags and gives [now - length, now]; --wait's window is the next one.
  observe::Window w = resolve_window(window_text, "", step_text);
  const double length = w.length();
  w.start = w.end;
  w.end = w.start + length;
  return w;
}

WaitEnd wait_for_window(const WaitPlan& plan) {
  const observe::Window& w = plan.window;
  print_line(stderr, fmt::format("observe: waiting {} ({}) until {} before judging",
                                 duration_text(w.length()), plan.source, utc_text(w.end)));
  const StopOnSignal stop;
  const auto until =
      plan.started + std::chrono::milliseconds(std::llround((w.length() + plan.settle_s) * 1000));
  const auto total = std::chrono::duration_cast<std::chrono::milliseconds>(
      std::max(until - std::chrono::steady_clock::now(), std::chrono::steady_clock::duration::zero()));
  const WaitEnd end =
      wait_or_stop(total, stop.flag(), plan.progress_every, [&](std::chrono::milliseconds left) {
        print_line(stderr, fmt::format("observe: {} of the {} window left (until {})",
                                       duration_text(std::max(0.0, left.count() / 1000.0 - plan.settle_s)),
                                       duration_text(w.length()), utc_text(w.end)));
      });
  if (end == WaitEnd::stopped) {
    const double into =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - plan.started).count();
    print_line(stderr,
               fmt::format("gpuqual observe: INCONCLUSIVE: stopped by {} {} into the {} window ({} to {}): "
                           "the window did not end, nothing judged",
                           signal_text(stop.signal()), duration_text(into), duration_text(w.length()),
                           utc_text(w.start), utc_text(w.end)));
  }
  return end;
}

}  // namespace gpuqual
