#pragma once
// What a run says the user can do next when it could use no GPU (README "What to expect"): the
// last lines on stdout before the summary line.
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "suites/suite.hpp"

namespace gpuqual {

// The suites in `dir` whose every check needs no GPU (their names, sorted); a suite that does
// not load is left out.
std::vector<std::string> suites_without_gpu(const std::string& dir);

// Whether the run could use no GPU: the inventory said why CUDA cannot use them, and no check
// measured anything on a GPU.
bool nothing_ran_on_a_gpu(const RunRecord& record, const std::string& gpu_unavailable_reason);

struct NextStepsContext {
  const Suite& suite;
  std::string suite_spec;                    // as given to --suite: a name or a file
  std::vector<std::string> gpu_free_suites;  // suites_without_gpu()
  std::string record_path;
  bool rereadable = true;  // a file, not `-`, a device or a FIFO: `gpuqual compare PATH` reads it again
};

// The lines to print: when nothing ran on a GPU, "next: ..." and what to run (the suite on a GPU
// node; without one, a suite that needs no GPU, else this suite's checks that need none); then
// always "record: PATH" and how to judge it again.
std::vector<std::string> next_steps(const RunRecord& record, const std::string& gpu_unavailable_reason,
                                    const NextStepsContext& context);

}  // namespace gpuqual
