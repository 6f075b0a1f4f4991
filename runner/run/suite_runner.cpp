#include "runner/run/suite_runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/base/version.hpp"
#include "runner/run/after_abort.hpp"
#include "runner/run/check_outcome.hpp"
#include "runner/run/check_task.hpp"
#include "runner/run/child_process.hpp"
#include "runner/run/signal_names.hpp"
#include "suites/check_catalog.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {

using Clock = std::chrono::steady_clock;

// A check may only name GPUs of this node: anything else would make the record unreadable.
void validate_gpus(const CheckResult& r, const std::set<int>& gpus, const std::string& file) {
  auto check = [&](const std::optional<int>& gpu, const std::string& where) {
    if (gpu && !gpus.count(*gpu))
      throw InputError(file, where, fmt::format("GPU {} is not a GPU of this node", *gpu));
  };
  for (std::size_t i = 0; i < r.metrics.size(); ++i)
    check(r.metrics[i].gpu, fmt::format("$.metrics[{}].gpu", i));
  for (std::size_t i = 0; i < r.findings.size(); ++i)
    check(r.findings[i].gpu, fmt::format("$.findings[{}].gpu", i));
  for (std::size_t i = 0; i < r.per_gpu.size(); ++i)
    check(r.per_gpu[i].gpu, fmt::format("$.per_gpu[{}].gpu", i));
}

CheckResult not_built(const std::string& check) {
  CheckResult r;
  r.name = check;
  r.status = Status::error;
  r.reason = fmt::format("check \"{}\" is not built into this gpuqual ({})", check, tool_version());
  r.started_at = utc_now_rfc3339();
  return r;
}

// A check's timeout: the suite's, or what is left of the run's --timeout when that is less.
struct CheckTimeout {
  double seconds = 0;
  std::string source;
};

// One run of a suite's checks, in order, each in a child process with the watchdog.
class SuiteRun {
 public:
  SuiteRun(const std::vector<SuiteCheck>& checks, RunJournal& journal, ProgressDisplay& display,
           StopState& stop, const RunnerSettings& settings)
      : checks_(checks), journal_(journal), display_(display), stop_(stop), settings_(settings) {
    for (const auto& g : journal.record().gpus) gpu_indices_.insert(g.index);
  }

  RunnerOutcome run() {
    for (std::size_t i = 0; i < checks_.size(); ++i) {
      if (stop_.count.load() > 0) {
        result_.interrupted = true;
        break;
      }
      if (check_availability(checks_[i].check) != CheckAvailability::built_in) {
        record_not_built(i);
        continue;
      }
      const std::optional<CheckTimeout> timeout = timeout_for(checks_[i]);
      if (!timeout) {
        result_.deadline_hit = true;
        break;
      }
      if (!run_check(i, *timeout)) {
        result_.interrupted = true;
        break;
      }
    }
    note_pending_reason();
    return result_;
  }

 private:
  void record_not_built(std::size_t i) {
    CheckResult r = not_built(checks_[i].check);
    r.optional = checks_[i].optional;
    journal_.finish(i, r);
    display_.check_finished(i, checks_.size(), r);
  }

  // Empty when the run's --timeout has already passed.
  std::optional<CheckTimeout> timeout_for(const SuiteCheck& c) const {
    CheckTimeout timeout{c.timeout_s, "the suite's timeout_s"};
    if (!settings_.run_timeout_s) return timeout;
    const double run_s = std::chrono::duration<double>(Clock::now() - run_start_).count();
    const double left = *settings_.run_timeout_s - run_s;
    if (left <= 0) return std::nullopt;
    if (left < timeout.seconds) {
      timeout.seconds = left;
      timeout.source = fmt::format("the run's --timeout of {}", format_duration(*settings_.run_timeout_s));
    }
    return timeout;
  }

  CheckContext context_for(const SuiteCheck& c) const {
    CheckContext ctx;
    ctx.gpus = settings_.gpus;
    ctx.node = journal_.record().node;
    ctx.node_gpus = journal_.record().gpus;
    ctx.hardware_class = journal_.record().hardware_class.slug;
    ctx.gpu_unavailable_reason = settings_.gpu_unavailable_reason;
    ctx.params = check_params_for(c, settings_);
    ctx.budget_s = c.budget_s;
    ctx.side_dir = settings_.side_dir;
    return ctx;
  }

  // Writes the task file and runs `gpuqual __check` on it under the watchdog.
  ChildOutcome spawn(const SuiteCheck& c, const CheckContext& ctx, const std::string& task_path,
                     const std::string& result_path, double timeout_s) {
    ChildOutcome outcome;
    try {
      write_file_atomic(task_path, check_task_to_text(c.check, ctx, journal_.record()));
      ChildSpec spec;
      spec.argv = {settings_.exe, "__check",   "--task",        task_path,
                   "--result",    result_path, "--progress-fd", std::to_string(kProgressFd)};
      spec.timeout_s = timeout_s;
      spec.grace_s = settings_.grace_s;
      spec.stop_level = [this] { return stop_.count.load(); };
      spec.wake_fd = stop_.wake_fd;
      spec.on_progress = [this](const std::string& m) { display_.check_progress(m); };
      spec.on_tick = [this](double elapsed) { display_.tick(elapsed); };
      outcome = run_child(spec);
    } catch (const std::exception& e) {
      outcome.spawn_error = fmt::format("cannot write the check's task file: {}", e.what());
    }
    return outcome;
  }

  // The child's result file, when it wrote one: its result, or why it is refused.
  void read_reported(const std::string& result_path, OutcomeContext& oc) const {
    std::error_code ec;
    if (!std::filesystem::exists(result_path, ec)) return;
    try {
      CheckResult reported = read_check_result(result_path);
      validate_gpus(reported, gpu_indices_, result_path);
      oc.reported = std::move(reported);
    } catch (const InputError& e) {
      oc.result_problem = e.what();
    }
  }

  // Runs checks_[i] and records its result; false when the run was asked to stop during it.
  bool run_check(std::size_t i, const CheckTimeout& timeout) {
    const SuiteCheck& c = checks_[i];
    const std::size_t total = checks_.size();
    CheckStart start{i, total, c.check, format_gpu_list(settings_.gpus), c.budget_s, timeout.seconds, 0};
    for (std::size_t k = i + 1; k < total; ++k) start.later_budget_s += checks_[k].budget_s;
    const std::string started_at = utc_now_rfc3339();
    journal_.begin(i, started_at);
    display_.check_started(start);

    const CheckContext ctx = context_for(c);
    const std::string stem = fmt::format("{}/{:02}-{}", settings_.work_dir, i, c.check);
    const std::string task_path = stem + ".task.json";
    const std::string result_path = stem + ".result.json";
    std::error_code ec;
    std::filesystem::remove(result_path, ec);

    if (settings_.on_check_change) settings_.on_check_change(c.check);
    const ChildOutcome outcome = spawn(c, ctx, task_path, result_path, timeout.seconds);
    OutcomeContext oc;
    oc.check = c.check;
    oc.timeout_s = timeout.seconds;
    oc.timeout_source = timeout.source;
    oc.grace_s = settings_.grace_s;
    oc.started_at = started_at;
    if (outcome.stopped) oc.stop_cause = signal_name(stop_.signal.load());
    read_reported(result_path, oc);
    if (settings_.on_check_change) settings_.on_check_change("");
    CheckResult r = result_from_outcome(outcome, oc);
    if (needs_clean_up(outcome)) note_clean_up(c, r);
    r.optional = c.optional;
    journal_.finish(i, r);
    ++result_.finished;
    display_.check_finished(i, total, r);
    warn_after(c, outcome);
    return !outcome.stopped;
  }

  // What the runner cleaned up after a check it stopped (containers, ...), on the check's result.
  static void note_clean_up(const SuiteCheck& c, CheckResult& r) {
    std::string cleaned;
    for (const auto& item : clean_up_after_abort(c.check, c.params)) {
      cleaned += (cleaned.empty() ? "" : "; ") + item;
    }
    if (!cleaned.empty()) r.attributes["runner.cleanup"] = cleaned;
  }

  void warn_after(const SuiteCheck& c, const ChildOutcome& outcome) {
    if (!journal_.last_error().empty()) {
      display_.warning("cannot rewrite the record: " + journal_.last_error());
    }
    if (!outcome.orphans_unkillable.empty()) {
      display_.warning(fmt::format("{} left {} process(es) that would not die (stuck in the kernel?)",
                                   c.check, outcome.orphans_unkillable.size()));
    }
  }

  // Why the checks after the last one that ran did not run.
  void note_pending_reason() {
    if (result_.interrupted) {
      result_.stop_cause = signal_name(stop_.signal.load());
      journal_.set_pending_reason(
          fmt::format("run interrupted ({}) before this check ran", result_.stop_cause));
    } else if (result_.deadline_hit) {
      journal_.set_pending_reason(fmt::format("not run: the run's --timeout of {} was reached",
                                              format_duration(*settings_.run_timeout_s)));
    }
  }

  const std::vector<SuiteCheck>& checks_;
  RunJournal& journal_;
  ProgressDisplay& display_;
  StopState& stop_;
  const RunnerSettings& settings_;
  const Clock::time_point run_start_ = Clock::now();
  std::set<int> gpu_indices_;
  RunnerOutcome result_;
};

}  // namespace

nlohmann::json check_params_for(const SuiteCheck& check, const RunnerSettings& settings) {
  nlohmann::json params = check.params.is_null() ? nlohmann::json::object() : check.params;
  if (check.check == "health" && settings.expect_gpus && params.is_object() &&
      !params.contains("expect_gpus")) {
    params["expect_gpus"] = *settings.expect_gpus;
  }
  return params;
}

RunnerOutcome run_checks(const std::vector<SuiteCheck>& checks, RunJournal& journal, ProgressDisplay& display,
                         StopState& stop, const RunnerSettings& settings) {
  return SuiteRun(checks, journal, display, stop, settings).run();
}

}  // namespace gpuqual
