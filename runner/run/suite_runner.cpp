#include "runner/run/suite_runner.hpp"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>

#include "core/base/atomic_file.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/base/version.hpp"
#include "runner/run/after_abort.hpp"
#include "runner/run/check_outcome.hpp"
#include "runner/run/check_task.hpp"
#include "runner/run/child_process.hpp"
#include "runner/run/device_parts.hpp"
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

// One child process of a check: the whole check, or one part of it on a MIG node.
struct ChildRun {
  const SuiteCheck* check = nullptr;
  const RunRecord* inventory = nullptr;  // what the child is told of the node
  std::string task_path, result_path;
  std::string progress_prefix;  // names the part on its progress lines
  bool ticks = true;            // this child drives the display's elapsed time
  std::set<int> valid_gpus;     // the device numbers its result may name
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

  // Writes the task file and runs `gpuqual __check` on it under the watchdog. `guard` is held
  // around every call into the display, for parts that run side by side.
  ChildOutcome spawn(const ChildRun& run, const CheckContext& ctx, double timeout_s) {
    ChildOutcome outcome;
    try {
      write_file_atomic(run.task_path, check_task_to_text(run.check->check, ctx, *run.inventory));
      ChildSpec spec;
      spec.argv = {settings_.exe, "__check",       "--task",        run.task_path,
                   "--result",    run.result_path, "--progress-fd", std::to_string(kProgressFd)};
      spec.timeout_s = timeout_s;
      spec.grace_s = settings_.grace_s;
      spec.stop_level = [this] { return stop_.count.load(); };
      spec.wake_fd = stop_.wake_fd;
      spec.on_progress = [this, &run](const std::string& m) {
        std::lock_guard<std::mutex> g(display_lock_);
        display_.check_progress(run.progress_prefix + m);
      };
      if (run.ticks) {
        spec.on_tick = [this](double elapsed) {
          std::lock_guard<std::mutex> g(display_lock_);
          display_.tick(elapsed);
        };
      }
      outcome = run_child(spec);
    } catch (const std::exception& e) {
      outcome.spawn_error = fmt::format("cannot write the check's task file: {}", e.what());
    }
    return outcome;
  }

  // The child's result file, when it wrote one: its result, or why it is refused.
  static void read_reported(const ChildRun& run, OutcomeContext& oc) {
    std::error_code ec;
    if (!std::filesystem::exists(run.result_path, ec)) return;
    try {
      CheckResult reported = read_check_result(run.result_path);
      validate_gpus(reported, run.valid_gpus, run.result_path);
      oc.reported = std::move(reported);
    } catch (const InputError& e) {
      oc.result_problem = e.what();
    }
  }

  // One child: its task, its run under the watchdog, its result honestly read.
  CheckResult run_child_check(const ChildRun& run, const CheckContext& ctx, const std::string& started_at,
                              const CheckTimeout& timeout, bool& stopped) {
    std::error_code ec;
    std::filesystem::remove(run.result_path, ec);
    const ChildOutcome outcome = spawn(run, ctx, timeout.seconds);
    OutcomeContext oc;
    oc.check = run.check->check;
    oc.timeout_s = timeout.seconds;
    oc.timeout_source = timeout.source;
    oc.grace_s = settings_.grace_s;
    oc.started_at = started_at;
    if (outcome.stopped) oc.stop_cause = signal_name(stop_.signal.load());
    read_reported(run, oc);
    CheckResult r = result_from_outcome(outcome, oc);
    if (needs_clean_up(outcome)) note_clean_up(*run.check, r);
    std::lock_guard<std::mutex> g(display_lock_);
    warn_after(*run.check, outcome);
    stopped = stopped || outcome.stopped;
    return r;
  }

  // The check once per part (runner/run/device_parts.hpp), all parts side by side, each with
  // the check's budget and timeout; one merged result.
  CheckResult run_parts(const std::vector<DevicePart>& parts, const SuiteCheck& c, const CheckContext& ctx,
                        const std::string& stem, const std::string& started_at, const CheckTimeout& timeout,
                        bool& stopped) {
    std::vector<CheckResult> results(parts.size());
    std::vector<std::thread> threads;
    std::vector<char> part_stopped(parts.size(), 0);
    for (std::size_t k = 0; k < parts.size(); ++k) {
      if (!parts[k].problem.empty()) {
        results[k] = unmeasurable(c.check, Status::error, parts[k].problem);
        results[k].started_at = started_at;
        continue;
      }
      threads.emplace_back([&, k] {
        const RunRecord inventory = part_inventory(journal_.record(), parts[k]);
        CheckContext part_ctx = ctx;
        part_ctx.gpus.clear();
        for (std::size_t d = 0; d < parts[k].record_gpus.size(); ++d)
          part_ctx.gpus.push_back(static_cast<int>(d));
        part_ctx.visible_devices = parts[k].visible_devices;
        part_ctx.hardware_class = parts[k].hardware_class;
        const ChildRun run = part_run(c, inventory, stem, k, parts[k]);
        bool s = false;
        results[k] = run_child_check(run, part_ctx, started_at, timeout, s);
        part_stopped[k] = s;
        try {
          map_part_result(results[k], parts[k], run.result_path);
        } catch (const InputError& e) {
          results[k] =
              unmeasurable(c.check, Status::error, std::string("returned an invalid result: ") + e.what());
        }
      });
    }
    for (auto& t : threads) t.join();
    for (char s : part_stopped) stopped = stopped || s;
    return merge_part_results(c.check, parts, std::move(results));
  }

  ChildRun part_run(const SuiteCheck& c, const RunRecord& inventory, const std::string& stem, std::size_t k,
                    const DevicePart& part) const {
    ChildRun run;
    run.check = &c;
    run.inventory = &inventory;
    run.task_path = fmt::format("{}.part{}.task.json", stem, k);
    run.result_path = fmt::format("{}.part{}.result.json", stem, k);
    run.progress_prefix = part.label + ": ";
    run.ticks = k == 0;
    for (std::size_t d = 0; d < part.record_gpus.size(); ++d) run.valid_gpus.insert(static_cast<int>(d));
    return run;
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
    const RunRecord& record = journal_.record();
    const std::vector<DevicePart> parts =
        device_parts(c.check, ctx.gpus, record.gpus, record.hardware_class.slug);
    if (settings_.on_check_change) settings_.on_check_change(c.check);
    bool stopped = false;
    CheckResult r;
    if (parts.empty()) {
      ChildRun run{&c, &record, stem + ".task.json", stem + ".result.json", "", true, gpu_indices_};
      r = run_child_check(run, ctx, started_at, timeout, stopped);
    } else {
      r = run_parts(parts, c, ctx, stem, started_at, timeout, stopped);
    }
    if (settings_.on_check_change) settings_.on_check_change("");
    r.optional = c.optional;
    journal_.finish(i, r);
    ++result_.finished;
    display_.check_finished(i, total, r);
    return !stopped;
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
  std::mutex display_lock_;  // parts run side by side; the display is not thread-safe
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
