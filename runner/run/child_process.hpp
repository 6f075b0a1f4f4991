#pragma once
// One check = one child process, watched. The child runs in its own process group, dies with
// the runner (PR_SET_PDEATHSIG), reads /dev/null, writes stdout+stderr into one pipe that the
// runner captures with a bound, and may send progress lines on fd 3. The watchdog sends TERM to
// the whole group at the timeout (or when the run is stopped), KILL after the grace period;
// once the child has ended, the rest of its group and any orphan it left are killed and reaped.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runner/run/bounded_capture.hpp"

namespace gpuqual {

inline constexpr int kProgressFd = 3;  // the child's end of the progress pipe

struct ChildSpec {
  std::vector<std::string> argv;  // argv[0]: path of the executable (no PATH search)
  double timeout_s = 60;
  double grace_s = 5;  // between TERM and KILL
  // Stop requests: 0 = keep running, 1 = stop (TERM, grace, KILL), 2+ = stop now (KILL).
  std::function<int()> stop_level;
  int wake_fd = -1;                                     // becomes readable when stop_level may have changed
  std::function<void(const std::string&)> on_progress;  // one call per progress line
  std::function<void(double elapsed_s)> on_tick;        // about 4 times a second
  std::size_t head_bytes = 4096;
  std::size_t tail_bytes = 16384;
};

struct ChildOutcome {
  int pid = -1;
  std::optional<int> exit_code;    // the child exited with this status
  std::optional<int> term_signal;  // the child was killed by this signal
  bool timed_out = false;          // the watchdog's timeout fired
  bool stopped = false;            // stop_level asked it to stop
  bool killed = false;             // SIGKILL was needed (TERM was not enough, or stop now)
  double elapsed_s = 0;
  BoundedCapture output;
  std::vector<int> orphans_killed;      // processes it left behind, killed after it ended
  std::vector<int> orphans_unkillable;  // left behind and would not die
  std::string spawn_error;              // non-empty: the child could not be started
};

ChildOutcome run_child(const ChildSpec& spec);

}  // namespace gpuqual
