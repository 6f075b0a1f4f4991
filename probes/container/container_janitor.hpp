#pragma once
// The guarantee that no container outlives the process that created it.
//
// Before a container is created, ContainerJanitor forks a watcher (double fork: it belongs to
// no one's process group, in a session of its own, so neither the runner's watchdog killing
// the check's process group nor a SIGKILL of gpuqual reaches it). The watcher blocks on a pipe
// whose only writer is the creating process. Three endings:
//   - the probe removed the container itself and calls dismiss(): the watcher reads a byte and
//     exits without doing anything;
//   - the creating process dies in any way (SIGKILL by the watchdog, a crash, SIGTERM, the
//     parent gpuqual killed): the kernel closes the pipe, the watcher reads EOF and removes the
//     container with the runtime's CleanupRecipe, several times over a few seconds so that a
//     create still in flight at the moment of death is caught too;
//   - the object is destroyed without dismiss() (the probe's own removal failed): same as death.
//
// The watcher is named "gpuqual-janitor" (/proc/<pid>/comm). A supervisor that kills every
// orphan it inherits (the runner's reaper) must spare it, or call the check's after-abort
// cleanup (suites/container_probe.hpp), or the container stays until the next sweep.
//
// After fork the watcher only makes async-signal-safe calls (read, socket, connect, write,
// fork, execve, waitpid, nanosleep): everything it needs is prepared before the fork, so it is
// safe in a multi-threaded process.
#include <sys/types.h>

#include "probes/container/container_runtime.hpp"

namespace gpuqual::probes {

struct JanitorTiming {
  // Removal attempts after the creator died, at these delays (ms) from its death. A removal
  // that found the container is followed by one more attempt, to catch a late create.
  int delays_ms[6] = {0, 300, 1000, 2000, 3500, 5000};
};

class ContainerJanitor {
 public:
  // Throws std::runtime_error when pipe/fork fail (the probe then must not create anything).
  explicit ContainerJanitor(const CleanupRecipe& recipe, JanitorTiming timing = {});
  ContainerJanitor(const ContainerJanitor&) = delete;
  ContainerJanitor& operator=(const ContainerJanitor&) = delete;
  ~ContainerJanitor();

  // The container is gone (removed by the probe): the watcher exits without acting.
  void dismiss();
  // Stops watching without dismissing: the watcher removes the container now.
  void release();
  pid_t watcher_pid() const { return watcher_pid_; }

 private:
  int write_fd_ = -1;
  pid_t watcher_pid_ = -1;
};

}  // namespace gpuqual::probes
