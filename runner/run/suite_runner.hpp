#pragma once
// Runs a suite's checks one after the other, each in its own child process (child_process.hpp),
// and keeps the journal (the record on disk) up to date after each. Per-GPU parallelism is the
// checks' business: each check gets all selected GPUs at once.
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "runner/run/progress.hpp"
#include "runner/run/run_journal.hpp"
#include "runner/run/stop_signal.hpp"
#include "suites/suite.hpp"

namespace gpuqual {

struct RunnerSettings {
  std::string exe;        // binary re-executed for each check (/proc/self/exe)
  std::string work_dir;   // task and result files of the children
  std::string side_dir;   // CheckContext::side_dir
  std::vector<int> gpus;  // selected GPU indices
  std::string gpu_unavailable_reason;
  double grace_s = 10;                  // TERM → KILL
  std::optional<double> run_timeout_s;  // --timeout: deadline of the whole run
  // The GPUs the node should have (the baseline's gpu_count, else the node's GFD label): handed to
  // `health` as its expect_gpus unless the suite sets one, so a GPU missing from NVML fails there.
  std::optional<int> expect_gpus;
  // Called with a check's name when it starts and with "" when it ends (the run-level Xid
  // monitor attributes events to the check that was running).
  std::function<void(const std::string&)> on_check_change;
};

struct RunnerOutcome {
  bool interrupted = false;   // stopped by a signal
  bool deadline_hit = false;  // --timeout reached
  std::string stop_cause;     // "SIGTERM", ...
  std::size_t finished = 0;   // checks with a result of their own
};

// The params a check runs with: the suite's, plus what the run knows that the check judges with
// (expect_gpus for `health`, when the suite does not set it).
nlohmann::json check_params_for(const SuiteCheck& check, const RunnerSettings& settings);

// `checks[i]` is journal.record().checks[i] (the record may hold more entries after them).
RunnerOutcome run_checks(const std::vector<SuiteCheck>& checks, RunJournal& journal, ProgressDisplay& display,
                         StopState& stop, const RunnerSettings& settings);

}  // namespace gpuqual
