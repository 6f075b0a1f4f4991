#pragma once
// A suite: the YAML file that says which checks a run performs, with which parameters and time
// budgets (suites/smoke.yaml, canary.yaml, standard.yaml, burnin.yaml, or a user's own file).
// The format is documented in docs/run.md ("Suites"); the loader is strict like every other
// reader of gpuqual's inputs: an unknown key, a mistyped value or a check name that no gpuqual
// knows is an InputError "file: line N: $.path: problem" (exit 3), never silently ignored.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace gpuqual {

struct SuiteCheck {
  std::string check;                                 // registry name (gemm, hbm, ...)
  nlohmann::json params = nlohmann::json::object();  // ${duration} already substituted
  double budget_s = 60;    // soft budget handed to the check; also what the ETA counts on
  double timeout_s = 150;  // hard limit: the watchdog kills the check's process group after it
  int line = 0;            // where the entry starts in the suite file (for messages)
  // `optional: true`: a skip of this check does not make the verdict inconclusive (recorded on
  // the check's result, so compare, diff and gate see it).
  bool optional = false;
};

struct Suite {
  std::string name;
  std::string description;
  std::string origin;                // the file it was loaded from
  std::optional<double> budget_s;    // target wall time of the whole suite (8-GPU node)
  bool takes_duration = false;       // some value uses ${duration}
  std::optional<double> duration_s;  // the duration in effect (--duration or the default)
  std::vector<SuiteCheck> checks;
};

struct SuiteOptions {
  std::optional<double> duration_s;  // --duration; only for suites that use ${duration}
};

// Throws InputError naming `origin`, the line and the problem.
Suite parse_suite_yaml(const std::string& text, const std::string& origin, const SuiteOptions& options = {});
Suite load_suite(const std::string& path, const SuiteOptions& options = {});

// Defaults for entries that omit them.
inline constexpr double kDefaultBudgetS = 60;
// timeout_s defaults to 2 × budget + 30 s: room for process start, CUDA context creation and a
// check that runs a little over its soft budget, while a hang still ends in bounded time.
double default_timeout_s(double budget_s);

}  // namespace gpuqual
