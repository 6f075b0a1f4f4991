#pragma once
// SIGINT, SIGTERM and SIGHUP stop a run: the handler only counts the signal and wakes the
// runner's poll loop through a self-pipe; the runner then stops the running check (TERM to its
// process group, KILL after the grace period; a second signal skips the grace), records the
// rest as "run interrupted" and exits 2. SIGPIPE and SIGXFSZ are ignored, so a closed stdout or
// a file-size limit becomes an error return (EPIPE, EFBIG) instead of killing the run.
#include <atomic>

namespace gpuqual {

struct StopState {
  int wake_fd = -1;            // readable after a signal (drain with drain_wake_fd)
  std::atomic<int> count{0};   // signals received so far
  std::atomic<int> signal{0};  // the last one
};

// Idempotent. Returns the process-wide state.
StopState& install_stop_handlers();
void drain_wake_fd(int fd);

}  // namespace gpuqual
