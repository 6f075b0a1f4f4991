#pragma once
// Turns what happened to a check's child process into the check's result, honestly:
//   exited 0 with a valid result   → that result
//   killed by a signal              → error "crashed: killed by SIGSEGV (Segmentation fault)"
//   exited non-zero / no result     → error naming the exit status and the last output line
//   invalid result file             → error "returned an invalid result: <problem>"
//   watchdog timeout                → error "timed out after N s" (what the check had reported,
//                                     if it managed to during the grace period, is kept)
//   run stopped (SIGTERM/SIGINT)    → the check's own result if it wrote one in the grace
//                                     period (a burn-in keeps what it measured), else error
//                                     "run interrupted ..."
// The runner, not the check, owns started_at and duration_s (wall clock, process start included).
#include <optional>
#include <string>

#include "core/record/record.hpp"
#include "runner/run/child_process.hpp"

namespace gpuqual {

struct OutcomeContext {
  std::string check;
  double timeout_s = 0;
  std::string timeout_source;  // "the suite's timeout_s" or "the run's --timeout of 600 s"
  double grace_s = 0;
  std::string stop_cause;               // "SIGTERM" etc. when the run was stopped
  std::optional<CheckResult> reported;  // the child's result file, when it was valid
  std::string result_problem;           // why the result file was rejected (non-empty: invalid)
  std::string started_at;
};

CheckResult result_from_outcome(const ChildOutcome& outcome, const OutcomeContext& ctx);

}  // namespace gpuqual
