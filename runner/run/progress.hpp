#pragma once
// What a run shows while it works, on stderr (stdout carries the report and, last, the one-line
// summary, so `--format json` stays parseable):
//   - on a TTY: one live line redrawn in place ("[2/7] gemm  GPUs 0-7  0:12/0:30  ETA 3m10s ...")
//     and one permanent line per finished check;
//   - otherwise (a Kubernetes Job log, CI): plain lines with a UTC timestamp, one when a check
//     starts and one when it ends, and a heartbeat every minute for long checks;
//   - --quiet: only warnings; --verbose: also the checks' progress messages and inventory facts.
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "core/record/record.hpp"

namespace gpuqual {

enum class Verbosity { quiet, normal, verbose };

struct CheckStart {
  std::size_t index = 0;  // 0-based
  std::size_t total = 0;
  std::string check;
  std::string gpus;  // "0-7", "none"
  double budget_s = 0;
  double timeout_s = 0;
  double later_budget_s = 0;  // sum of the budgets of the checks after this one (for the ETA)
};

// "0-3,5"; "none" for an empty list.
std::string format_gpu_list(const std::vector<int>& gpus);
// Seconds left in the run, counting the current check's remaining budget (never below 0).
double eta_s(const CheckStart& s, double elapsed_s);
// The live line, controls shown as escapes, at most width - 1 display columns.
std::string format_live_line(const CheckStart& s, double elapsed_s, const std::string& message,
                             std::size_t width);
std::string format_finished_line(std::size_t index, std::size_t total, const CheckResult& r);

class ProgressDisplay {
 public:
  ProgressDisplay(std::FILE* out, bool live, Verbosity verbosity);
  ~ProgressDisplay();
  bool live() const { return live_; }
  Verbosity verbosity() const { return verbosity_; }

  void info(const std::string& line);  // normal and verbose
  // "<head>: <reason>" (normal and verbose), a cause that an earlier line said in full named by
  // its first clause and "(above)" (core/judge/common_cause.hpp).
  void result(const std::string& head, const std::string& reason);
  void detail(const std::string& line);   // verbose only
  void warning(const std::string& line);  // always
  void check_started(const CheckStart& start);
  void check_progress(const std::string& message);
  void tick(double elapsed_s);
  void check_finished(std::size_t index, std::size_t total, const CheckResult& result);

 private:
  void emit(const std::string& line);  // clears the live line first
  void clear_live();
  std::FILE* out_;
  bool tty_;   // a terminal: no timestamps
  bool live_;  // a terminal and not --quiet: the live line
  Verbosity verbosity_;
  bool live_shown_ = false;
  std::optional<CheckStart> current_;
  std::string last_message_;
  double last_heartbeat_s_ = 0;
  std::vector<std::string> said_;  // every info line and reason, in full: what a later one may refer to
};

// Whether stderr is a terminal that can redraw a line (not "dumb").
bool stderr_is_live_terminal();

}  // namespace gpuqual
