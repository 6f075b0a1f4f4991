#pragma once
// Runs the storage I/O sequence of one path (probes/storage/storage_io.hpp) in a forked worker process
// with a deadline, so a hung mount (a dead NFS server, a frozen filesystem) costs one path's
// timeout instead of the run: at the deadline, or when `stop` is set, the worker is killed, the
// stage it was in is named, and its test file is removed in a bounded helper. The worker shares
// the caller's process group, so the runner's watchdog reaches it too.
//
// fork() without exec: the caller must be single-threaded at this point (the check child and
// `gpuqual probe` are); the worker uses only glibc's fork-safe malloc and plain syscalls.
#include <atomic>
#include <string>

#include "probes/storage/storage_io.hpp"

namespace gpuqual::probes {

struct StorageOutcome {
  StorageReport report;    // what the worker sent (partial when it hung or died)
  bool hung = false;       // the deadline (or a stop) ended it
  std::string hung_stage;  // the stage it was in
  std::string error;       // the worker could not run, died, or hung: why (names the path)
  std::string removal;     // "" or why the test file could not be removed
};

StorageOutcome run_storage_worker(const StoragePathSpec& spec, const std::atomic<bool>* stop);

}  // namespace gpuqual::probes
