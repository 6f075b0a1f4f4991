#pragma once
// What names a run in its record: a fresh run id and the command line that started it. Shared by
// `gpuqual run` and the multi-node `gpuqual nccl` (rank 0 writes that record).
#include <string>
#include <vector>

namespace gpuqual {

// A random UUID (version 4), e.g. "c7b72815-81be-430e-84de-45651ca0a6ca".
std::string new_run_id();
// This process's argv as the kernel has it (/proc/self/cmdline); empty when unreadable.
std::vector<std::string> own_argv();

}  // namespace gpuqual
