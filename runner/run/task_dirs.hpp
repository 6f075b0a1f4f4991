#pragma once
// The per-run work directory where `run` hands each check its task and reads its result
// ($TMPDIR or /tmp, gpuqual-run-XXXXXX). A run removes its own at the end; a run killed with
// SIGKILL cannot, so each directory holds an `owner` file (pid, the process's start time, which
// tells a live owner from a reused pid, and its pid namespace), and the next `gpuqual run` (and
// `gpuqual probe cleanup`) removes every directory whose owner is gone. A directory owned in
// another pid namespace (another container sharing /tmp) is left alone.
#include <string>
#include <vector>

namespace gpuqual {

// $TMPDIR when set and not empty, else /tmp.
std::string task_dir_root();

// Removes stale task directories under `root`; returns the ones removed. A directory without
// an owner file is left alone unless it is older than an hour (its run may be starting now).
std::vector<std::string> sweep_stale_task_dirs(const std::string& root);

// Sweeps, then creates this process's task directory under `root` with its owner file.
// Throws std::runtime_error naming the path when it cannot.
std::string make_task_dir(const std::string& root);

}  // namespace gpuqual
