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
    if (gpu && !gpus.count(*gpu)) throw InputError(file, where, fmt::format("GPU {} is not a GPU of this node", *gpu));
  };
  for (std::size_t i = 0; i < r.metrics.size(); ++i) check(r.metrics[i].gpu, fmt::format("$.metrics[{}].gpu", i));
  for (std::size_t i = 0; i < r.findings.size(); ++i) check(r.findings[i].gpu, fmt::format("$.findings[{}].gpu", i));
  for (std::size_t i = 0; i < r.per_gpu.size(); ++i) check(r.per_gpu[i].gpu, fmt::format("$.per_gpu[{}].gpu", i));
}

CheckResult not_built(const std::string& check) {
  CheckResult r;
  r.name = check;
  r.status = Status::error;
  r.reason = fmt::format("check \"{}\" is not built into this gpuqual ({})", check, tool_version());
  r.started_at = utc_now_rfc3339();
  return r;
}

}  // namespace

nlohmann::json check_params_for(const SuiteCheck& check, const RunnerSettings& settings) {
  nlohmann::json params = check.params.is_null() ? nlohmann::json::object() : check.params;
  if (check.check == "health" && settings.expect_gpus && params.is_object() && !params.contains("expect_gpus")) {
    params["expect_gpus"] = *settings.expect_gpus;
  }
  return params;
}

RunnerOutcome run_checks(const std::vector<SuiteCheck>& checks, RunJournal& journal, ProgressDisplay& display,
                         StopState& stop, const RunnerSettings& settings) {
  RunnerOutcome result;
  const auto run_start = Clock::now();
  std::set<int> gpu_indices;
  for (const auto& g : journal.record().gpus) gpu_indices.insert(g.index);
  const std::size_t total = checks.size();

  for (std::size_t i = 0; i < total; ++i) {
    if (stop.count.load() > 0) {
      result.interrupted = true;
      break;
    }
    const SuiteCheck& c = checks[i];
    if (check_availability(c.check) != CheckAvailability::built_in) {
      CheckResult r = not_built(c.check);
      r.optional = c.optional;
      journal.finish(i, r);
      display.check_finished(i, total, r);
      continue;
    }
    double timeout_s = c.timeout_s;
    std::string timeout_source = "the suite's timeout_s";
    if (settings.run_timeout_s) {
      const double left = *settings.run_timeout_s - std::chrono::duration<double>(Clock::now() - run_start).count();
      if (left <= 0) {
        result.deadline_hit = true;
        break;
      }
      if (left < timeout_s) {
        timeout_s = left;
        timeout_source = fmt::format("the run's --timeout of {}", format_duration(*settings.run_timeout_s));
      }
    }

    CheckStart start{i, total, c.check, format_gpu_list(settings.gpus), c.budget_s, timeout_s, 0};
    for (std::size_t k = i + 1; k < total; ++k) start.later_budget_s += checks[k].budget_s;
    const std::string started_at = utc_now_rfc3339();
    journal.begin(i, started_at);
    display.check_started(start);

    CheckContext ctx;
    ctx.gpus = settings.gpus;
    ctx.node = journal.record().node;
    ctx.node_gpus = journal.record().gpus;
    ctx.hardware_class = journal.record().hardware_class.slug;
    ctx.gpu_unavailable_reason = settings.gpu_unavailable_reason;
    ctx.params = check_params_for(c, settings);
    ctx.budget_s = c.budget_s;
    ctx.side_dir = settings.side_dir;
    const std::string stem = fmt::format("{}/{:02}-{}", settings.work_dir, i, c.check);
    const std::string task_path = stem + ".task.json";
    const std::string result_path = stem + ".result.json";
    std::error_code ec;
    std::filesystem::remove(result_path, ec);

    ChildOutcome outcome;
    if (settings.on_check_change) settings.on_check_change(c.check);
    try {
      write_file_atomic(task_path, check_task_to_text(c.check, ctx, journal.record()));
      ChildSpec spec;
      spec.argv = {settings.exe, "__check", "--task", task_path, "--result", result_path,
                   "--progress-fd", std::to_string(kProgressFd)};
      spec.timeout_s = timeout_s;
      spec.grace_s = settings.grace_s;
      spec.stop_level = [&stop] { return stop.count.load(); };
      spec.wake_fd = stop.wake_fd;
      spec.on_progress = [&display](const std::string& m) { display.check_progress(m); };
      spec.on_tick = [&display](double elapsed) { display.tick(elapsed); };
      outcome = run_child(spec);
    } catch (const std::exception& e) {
      outcome.spawn_error = fmt::format("cannot write the check's task file: {}", e.what());
    }

    OutcomeContext oc;
    oc.check = c.check;
    oc.timeout_s = timeout_s;
    oc.timeout_source = timeout_source;
    oc.grace_s = settings.grace_s;
    oc.started_at = started_at;
    if (outcome.stopped) oc.stop_cause = signal_name(stop.signal.load());
    if (std::filesystem::exists(result_path, ec)) {
      try {
        CheckResult reported = read_check_result(result_path);
        validate_gpus(reported, gpu_indices, result_path);
        oc.reported = std::move(reported);
      } catch (const InputError& e) {
        oc.result_problem = e.what();
      }
    }
    if (settings.on_check_change) settings.on_check_change("");
    CheckResult r = result_from_outcome(outcome, oc);
    if (needs_clean_up(outcome)) {
      std::string cleaned;
      for (const auto& item : clean_up_after_abort(c.check, c.params)) cleaned += (cleaned.empty() ? "" : "; ") + item;
      if (!cleaned.empty()) r.attributes["runner.cleanup"] = cleaned;
    }
    r.optional = c.optional;
    journal.finish(i, r);
    ++result.finished;
    display.check_finished(i, total, r);
    if (!journal.last_error().empty()) display.warning("cannot rewrite the record: " + journal.last_error());
    if (!outcome.orphans_unkillable.empty()) {
      display.warning(fmt::format("{} left {} process(es) that would not die (stuck in the kernel?)", c.check,
                                  outcome.orphans_unkillable.size()));
    }
    if (outcome.stopped) {
      result.interrupted = true;
      break;
    }
  }

  if (result.interrupted) {
    result.stop_cause = signal_name(stop.signal.load());
    journal.set_pending_reason(fmt::format("run interrupted ({}) before this check ran", result.stop_cause));
  } else if (result.deadline_hit) {
    journal.set_pending_reason(
        fmt::format("not run: the run's --timeout of {} was reached", format_duration(*settings.run_timeout_s)));
  }
  return result;
}

}  // namespace gpuqual
