#pragma once
// gpuqual's one way to run a program: an argv vector — never through a shell — with a deadline,
// a stop flag and bounded output capture. The container runtime CLIs (podman, nerdctl, docker:
// probes/container/cli_runtime.cpp) and the stack inventory's `<tool> --version` (device/host/) use it.
//
// It lives in core/base/ because both of those need it and neither may include the other:
// probes/ links gpuqual_core only (it builds and is tested without CUDA), device/ links core too,
// and plain POSIX is all this needs.
//
// The child gets PR_SET_PDEATHSIG(SIGKILL): when the process that spawned it dies (the
// watchdog kills a check), a `podman wait` or `podman logs` client does not outlive it. The
// containers such clients created are removed by the janitor (probes/container/container_janitor.hpp), not
// here.
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

namespace gpuqual {

struct ProcessOptions {
  double timeout_s = 60;                    // wall-clock limit; then SIGKILL
  std::size_t max_output = 1u << 20;        // per stream; the rest is read and dropped
  const std::atomic<bool>* stop = nullptr;  // set → SIGKILL, result.stopped
  std::vector<std::string> extra_env;       // "K=V" added to (or replacing in) the environment
  // stderr goes into `out` through the same pipe, so the two read in the order they were written
  // (a `--version` line may be on either); `err` stays empty.
  bool merge_stderr = false;
};

struct ProcessResult {
  int exit_code = -1;      // valid when exited
  bool exited = false;     // ended by exit(), not by a signal
  int term_signal = 0;     // the signal that ended it, when !exited
  bool timed_out = false;  // killed by us at the deadline
  bool stopped = false;    // killed by us because the stop flag was set
  int spawn_errno = 0;     // exec failed (ENOENT: program not found); nothing ran
  std::string out;
  std::string err;
  bool out_truncated = false;
  bool err_truncated = false;
  double wall_s = 0;

  bool ok() const { return exited && exit_code == 0; }
  // "exit 125", "killed by signal 9", "timed out after 5 s", "not found: podman"
  std::string describe(const std::string& program) const;
};

// Throws std::invalid_argument for an empty argv and std::runtime_error when no pipe or process
// can be made; never throws for a failing program.
ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options);

// The absolute path of `program` found through PATH, or "" when it is not there.
std::string find_program(const std::string& program);

}  // namespace gpuqual
