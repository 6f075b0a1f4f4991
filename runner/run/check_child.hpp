#pragma once
// The child side of a check: `gpuqual __check --task FILE --result FILE` (hidden subcommand;
// the runner re-executes its own binary, /proc/self/exe). Reads the task, runs the one check,
// turns an exception into `error` with its message, writes the result file atomically, and
// returns 0. SIGTERM (the watchdog, or the run being stopped) sets the check's stop flag, so
// a long check can end early with what it measured before the runner's grace period ends.
#include <string>

namespace gpuqual {

int run_check_child(const std::string& task_path, const std::string& result_path, int progress_fd);

}  // namespace gpuqual
