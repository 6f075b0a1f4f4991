#pragma once
// Runs a short informational command (`docker --version`) without a shell and returns what it
// printed, with a hard timeout: an inventory must not hang on a wedged container runtime.
#include <optional>
#include <string>
#include <vector>

namespace gpuqual {

struct CommandOutput {
  int exit_code = -1;       // -1 when killed by the timeout or by a signal
  bool timed_out = false;
  std::string output;       // stdout and stderr together, at most `max_bytes`
};

// nullopt when the program could not be started at all.
std::optional<CommandOutput> run_for_output(const std::vector<std::string>& argv, double timeout_s = 5.0,
                                            std::size_t max_bytes = 64 * 1024);

}  // namespace gpuqual
