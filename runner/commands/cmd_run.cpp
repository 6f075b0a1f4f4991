// `gpuqual run --suite NAME|FILE`: collect the inventory, run the suite's checks (each in a
// child process with a watchdog), keep the record on disk valid after every check, and judge the
// record exactly as `gpuqual compare` does (docs/run.md).
#include <fmt/format.h>

#include <stdlib.h>
#include <unistd.h>
#include <map>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <random>

#include "core/base/atomic_file.hpp"
#include "core/base/exit_code.hpp"
#include "core/base/input_error.hpp"
#include "core/base/text_escape.hpp"
#include "core/base/text_table.hpp"
#include "core/base/text_width.hpp"
#include "core/base/utc_time.hpp"
#include "core/base/version.hpp"
#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "device/monitor/run_monitor.hpp"
#include "device/node/inventory.hpp"
#include "runner/cli/class_option.hpp"
#include "runner/cli/command.hpp"
#include "runner/cli/expect_gpus_option.hpp"
#include "runner/cli/stack_options.hpp"
#include "runner/cli/target_option.hpp"
#include "runner/commands/compare_baseline.hpp"
#include "runner/reporters/report_options.hpp"
#include "runner/run/next_steps.hpp"
#include "runner/run/orphan_reaper.hpp"
#include "runner/run/output_lock.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/run_identity.hpp"
#include "runner/run/run_journal.hpp"
#include "runner/run/run_plan.hpp"
#include "runner/run/run_summary.hpp"
#include "runner/run/stop_signal.hpp"
#include "runner/run/suite_runner.hpp"
#include "runner/run/task_dirs.hpp"
#include "suites/suite.hpp"
#include "suites/suite_duration.hpp"

namespace gpuqual {

namespace {

namespace fs = std::filesystem;

struct RunArgs {
  std::string suite;
  std::string suites_dir;
  std::vector<std::string> only;
  std::vector<std::string> skip;
  std::string gpus;
  std::string output;
  std::string baseline = "auto";
  std::string baselines_dir;
  std::string class_override;
  std::string labels_file;
  StackFlags stack;
  int expect_gpus = 0;
  std::string target;
  std::string timeout;
  std::string duration;
  double grace_s = 10;
  bool quiet = false;
  bool verbose = false;
  ReportOptions report;
};

std::optional<double> duration_flag(const std::string& text, const char* flag) {
  if (text.empty()) return std::nullopt;
  auto d = parse_duration_s(text);
  if (!d || *d <= 0) {
    throw InputError(flag, "", fmt::format("\"{}\" is not a duration (e.g. 90s, 15m, 2h, 1h30m)", text));
  }
  return d;
}

void ensure_parent_dir(const std::string& path) {
  const fs::path parent = fs::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  fs::create_directories(parent, ec);
  if (ec)
    throw InputError(path, "",
                     fmt::format("cannot create the directory {}: {}", parent.string(), ec.message()));
}

// What the flags and files say, all checked before anything runs.
struct RunInputs {
  std::optional<double> run_timeout;
  Suite suite;
  std::vector<SuiteCheck> checks;
  bool judge = false;
  std::unique_ptr<Baseline> baseline;  // null with --baseline auto until the class is known
  std::unique_ptr<Target> target;
  SeverityTable xid_table;
};

// The Xid severities the run-level monitor judges with (the health check's tables and the
// operator's overrides): a broken table is found now, not after the run.
SeverityTable load_xid_table() {
  SeverityTable xid_table = load_severity_tables(severity_tables_dir(""), health_finding_codes());
  if (const char* overrides = std::getenv(kHealthOverridesEnv); overrides && *overrides) {
    load_severity_overrides(xid_table, overrides);
  }
  return xid_table;
}

// Everything that can be wrong with the flags and files is found before anything runs.
RunInputs check_run_inputs(const RunArgs& a) {
  const std::optional<double> duration = duration_flag(a.duration, "--duration");
  const std::optional<double> run_timeout = duration_flag(a.timeout, "--timeout");
  if (!(a.grace_s >= 0 && a.grace_s <= 3600)) throw InputError("--grace", "", "must be between 0 and 3600 s");
  Suite suite = load_suite(resolve_suite(a.suite, suites_dir(a.suites_dir)), SuiteOptions{duration});
  std::vector<SuiteCheck> checks = select_checks(suite, a.only, a.skip);
  const bool judge = a.baseline != "none";
  if (!judge && uses_report_flags(a.report)) {
    throw InputError("--baseline none", "",
                     "--format json, --junit, --prometheus and --markdown report a verdict; "
                     "with --baseline none nothing is judged (judge later: gpuqual compare RECORD)");
  }
  std::unique_ptr<Baseline> baseline;
  if (judge && a.baseline != "auto") baseline = std::make_unique<Baseline>(load_baseline(a.baseline));
  if (!judge && !a.target.empty())
    throw InputError("--target", "", "a target is judged with the record; --baseline none judges nothing");
  std::unique_ptr<Target> target = load_target_flag(a.target);
  SeverityTable xid_table = load_xid_table();
  return RunInputs{run_timeout,         std::move(suite),  std::move(checks),   judge,
                   std::move(baseline), std::move(target), std::move(xid_table)};
}

Inventory collect_run_inventory(const RunArgs& a) {
  InventoryOptions inv_options;
  inv_options.class_override = a.class_override;
  inv_options.k8s_labels_file = a.labels_file;
  apply_stack_flags(a.stack, inv_options);
  return collect_inventory(inv_options);
}

// --baseline auto: the node's class baseline, now that the class is known (none found: the
// verdict will be inconclusive, and the run goes on).
void find_auto_baseline(const RunArgs& a, const std::string& slug, RunInputs& in, ProgressDisplay& display) {
  if (in.judge && a.baseline == "auto") {
    std::string missing;
    in.baseline = find_class_baseline(slug, baselines_dir(a.baselines_dir), &missing);
    if (!in.baseline) display.info(missing + ": the verdict will be inconclusive");
  }
  if (in.baseline) require_baseline_class(*in.baseline, slug);
}

// A regular file (or a new one, or a symlink's target) is replaced atomically after every
// check and locked against a second run; a device, FIFO or `-` gets the final record once.
OutputTarget resolve_record_output(const std::string& output) {
  try {
    return resolve_output(output);
  } catch (const std::exception& e) {
    std::string why = e.what();  // "<output>: is a directory": the path is said once
    if (why.rfind(output + ": ", 0) == 0) why.erase(0, output.size() + 2);
    throw InputError(output, "", "cannot write the run record: " + why);
  }
}

// The record as it starts: one entry a check, in the suite's order, and after the suite's checks
// the Xids seen during the whole run (device/monitor/run_monitor.hpp).
RunRecord new_run_record(const Suite& suite, const std::vector<SuiteCheck>& checks, const Inventory& inv,
                         std::chrono::system_clock::time_point now) {
  RunRecord record;
  record.tool = {tool_version(), git_revision()};
  record.run_id = new_run_id();
  record.started_at = utc_rfc3339(now);
  record.argv = own_argv();
  record.suite = suite.name;
  record.node = inv.node;
  record.hardware_class = inv.hardware_class;
  record.gpus = inv.gpus;
  for (const auto& c : checks) {
    record.checks.emplace_back();
    record.checks.back().name = c.check;
  }
  record.checks.emplace_back();
  record.checks.back().name = kXidCheckName;
  return record;
}

void open_journal(RunJournal& journal, const std::string& output) {
  try {
    journal.open();
  } catch (const std::exception& e) {
    throw InputError(output, "", fmt::format("cannot write the run record: {}", e.what()));
  }
}

RunnerSettings runner_settings(const RunArgs& a, const RunInputs& in, const Inventory& inv,
                               const std::vector<int>& gpus, const OutputTarget& out) {
  RunnerSettings settings;
  settings.exe = fs::read_symlink("/proc/self/exe").string();
  settings.work_dir = make_task_dir(task_dir_root());
  // Side files (NVML snapshots, burn-in telemetry) sit next to a record file; a streamed record
  // has no "next to", so they live in the task directory for the run's duration.
  settings.side_dir = out.kind == OutputKind::stream ? settings.work_dir + "/files" : side_dir_for(out.path);
  settings.gpus = gpus;
  settings.gpu_unavailable_reason = inv.gpu_unavailable_reason;
  settings.grace_s = a.grace_s;
  // The count `health` judges NVML's against: the one compare will judge the record with
  // (the largest of --expect-gpus, the baseline's gpu_count and the node's labels;
  // core/verdict/expected_gpus.hpp).
  if (auto n = expected_gpu_count(inv.node.k8s_labels, in.baseline.get(), expect_gpus_value(a.expect_gpus))) {
    settings.expect_gpus = n->count;
  }
  settings.run_timeout_s = in.run_timeout;
  return settings;
}

void start_monitor(RunHealthMonitor& monitor, const RunnerSettings& settings, ProgressDisplay& display) {
  try {
    monitor.start(settings.side_dir);  // Xid capture, and nvml-before.json for the health check
  } catch (const std::exception& e) {
    display.warning(fmt::format("run health monitor: {}", e.what()));
  }
}

// --baseline none: the next steps only when nothing ran on a GPU, then the summary line.
int report_unjudged(const RunRecord& done, const std::string& gpu_unavailable_reason,
                    const NextStepsContext& next, const std::string& output) {
  if (nothing_ran_on_a_gpu(done, gpu_unavailable_reason)) {
    const std::size_t width = output_width(STDOUT_FILENO);
    for (const auto& line : next_steps(done, gpu_unavailable_reason, next)) {
      std::fputs((wrap_lines(terminal_line(line), width) + "\n").c_str(), stdout);
    }
  }
  std::printf("%s\n", escape_controls(unjudged_summary(done, output), false).c_str());
  return unjudged_exit_code(done);
}

// Judge the record this run wrote, through the record reader exactly as `gpuqual compare`
// reads a file, but from memory: the path may already hold another writer's record (or be a
// device or a pipe that reads back nothing).
int judge_written_record(const RunArgs& a, const RunInputs& in, const RunRecord& done,
                         const std::string& output, const std::vector<std::string>& steps) {
  const RunRecord as_written = StreamingRecordReader().parse(record_to_text(done), output);
  CompareOptions options{a.report.strict, expect_gpus_value(a.expect_gpus), in.target.get()};
  AutoBaselines slices(baselines_dir(a.baselines_dir));  // MIG slice classes (docs/mig.md)
  options.unit_baselines = &slices;
  const Verdict verdict = compare_record(as_written, in.baseline.get(), options);
  // Where the record went, on stdout too (a Job log shows stdout), after the table; not in
  // --format json, whose stdout is one JSON document and the summary line.
  return emit_reports(verdict, a.report, steps);
}

// The run's last words: the record's fate (unwritten, interrupted), then the verdict or, with
// --baseline none, the unjudged summary.
int report_run(const RunArgs& a, const RunInputs& in, const RunJournal& journal, const RunnerOutcome& ran,
               const std::string& gpu_unavailable_reason, const std::string& output, bool streamed,
               ProgressDisplay& display) {
  const RunRecord& done = journal.record();
  if (!journal.last_error().empty()) {
    std::fprintf(stderr, "gpuqual: error: cannot write the run record %s: %s\n", output.c_str(),
                 journal.last_error().c_str());
    std::printf("%s\n", escape_controls(unwritten_summary(done, journal.last_error()), false).c_str());
    return unjudged_exit_code(done);
  }
  display.info("record written: " + output);
  if (ran.interrupted) {
    const std::string summary =
        interrupted_summary(done, ran.stop_cause, ran.finished, in.checks.size(), output);
    std::printf("%s\n", escape_controls(summary, false).c_str());
    return kExitInconclusive;
  }
  // What the user can do next, and where the record is: the last lines before the summary.
  const NextStepsContext next{in.suite, a.suite, suites_without_gpu(suites_dir(a.suites_dir)), output,
                              !streamed};
  if (!in.judge) return report_unjudged(done, gpu_unavailable_reason, next, output);
  return judge_written_record(a, in, done, output, next_steps(done, gpu_unavailable_reason, next));
}

int run_run(const RunArgs& a) {
  StopState& stop = install_stop_handlers();
  const Verbosity verbosity = a.quiet ? Verbosity::quiet : a.verbose ? Verbosity::verbose : Verbosity::normal;
  ProgressDisplay display(stderr, stderr_is_live_terminal(), verbosity);
  RunInputs in = check_run_inputs(a);

  display.detail("collecting the inventory");
  const Inventory inv = collect_run_inventory(a);
  const std::vector<int> gpus = select_gpus(a.gpus, inv.gpus);
  const std::string& slug = inv.hardware_class.slug;
  find_auto_baseline(a, slug, in, display);

  const auto now = std::chrono::system_clock::now();
  const std::string output =
      a.output.empty() ? default_output_path(inv.node.hostname, utc_compact(now)) : a.output;
  const OutputTarget out = resolve_record_output(output);
  const bool streamed = out.kind == OutputKind::stream;
  std::unique_ptr<OutputLock> lock;
  if (!streamed) {
    ensure_parent_dir(out.path);
    lock = std::make_unique<OutputLock>(out.path);
  }
  RunRecord record = new_run_record(in.suite, in.checks, inv, now);
  const std::size_t xid_index = record.checks.size() - 1;
  RunJournal journal(out.path, std::move(record), streamed);
  open_journal(journal, output);

  RunnerSettings settings = runner_settings(a, in, inv, gpus, out);
  std::error_code ec;
  // The side directory is made by the first writer into it (never an empty one left by SIGKILL).
  become_subreaper();
  RunHealthMonitor monitor(inv.gpus);
  start_monitor(monitor, settings, display);
  settings.on_check_change = [&monitor](const std::string& check) { monitor.set_running_check(check); };
  // Checks name what they create outside the host after the run (container names and labels).
  setenv("GPUQUAL_RUN_ID", journal.record().run_id.c_str(), 1);

  display.info(fmt::format("suite {} ({} checks{}) on {} ({}, GPUs {}); record {}", in.suite.name,
                           in.checks.size(),
                           in.suite.duration_s ? ", duration " + format_duration(*in.suite.duration_s) : "",
                           inv.node.hostname, slug, format_gpu_list(gpus), output));
  if (!inv.gpu_unavailable_reason.empty()) display.info("GPUs unavailable: " + inv.gpu_unavailable_reason);

  const RunnerOutcome ran = run_checks(in.checks, journal, display, stop, settings);
  const CheckResult xids = monitor.stop(in.xid_table);
  display.result(fmt::format("{}: {}", xids.name, to_string(xids.status)), xids.reason);
  journal.finish(xid_index, xids);
  journal.close(!ran.interrupted && !ran.deadline_hit, utc_now_rfc3339());
  fs::remove_all(settings.work_dir, ec);
  if (fs::is_empty(settings.side_dir, ec) && !ec) fs::remove(settings.side_dir, ec);
  return report_run(a, in, journal, ran, inv.gpu_unavailable_reason, output, streamed, display);
}

}  // namespace

void add_run_command(CLI::App& app, CommandAction& selected) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* cmd =
      app.add_subcommand("run", "Run a suite of checks on this node, write the run record, and judge it");
  cmd->add_option("--suite", args->suite, "Suite name (smoke, canary, standard, burnin) or a suite YAML file")
      ->required()
      ->type_name("NAME|FILE");
  cmd->add_option(
         "--suites-dir", args->suites_dir,
         "Where suite names are looked up (default: $GPUQUAL_SUITES_DIR, the installed share/gpuqual/suites, "
         "or the source tree's suites/)")
      ->type_name("DIR");
  cmd->add_option(
         "--only", args->only,
         "Run only these checks of the suite (comma-separated or repeated); a check the suite requires "
         "left out makes the verdict inconclusive")
      ->delimiter(',')
      ->type_name("CHECK");
  cmd->add_option("--skip", args->skip,
                  "Leave these checks of the suite out (comma-separated or repeated); a check the suite "
                  "requires left out makes the verdict inconclusive")
      ->delimiter(',')
      ->type_name("CHECK");
  cmd->add_option("--gpus", args->gpus, "GPU indices to measure, e.g. 0,2 (default: all)")->type_name("LIST");
  cmd->add_option("--output,-o", args->output,
                  "Run record to write (default: results/<host>-<UTC timestamp>.json)")
      ->type_name("FILE");
  cmd->add_option("--baseline", args->baseline,
                  "auto (baselines/<class>.yaml), a baseline YAML file, or none")
      ->capture_default_str();
  cmd->add_option("--baselines-dir", args->baselines_dir,
                  "Where --baseline auto looks (default: $GPUQUAL_BASELINES_DIR, the installed "
                  "share/gpuqual/baselines, "
                  "or the source tree's baselines/)")
      ->type_name("DIR");
  add_class_option(cmd, args->class_override, "Use this hardware class instead of the derived one");
  cmd->add_option("--labels-file", args->labels_file,
                  "Kubernetes node labels file (key=value lines) for the record")
      ->type_name("PATH");
  add_stack_options(cmd, args->stack);
  add_expect_gpus_option(cmd, args->expect_gpus);
  add_target_option(cmd, args->target);
  cmd->add_option("--timeout", args->timeout,
                  "Deadline for the whole run (e.g. 20m): the running check is stopped, the rest are "
                  "recorded as not run")
      ->type_name("DURATION");
  cmd->add_option("--duration", args->duration, "Duration for suites that take one (burnin), e.g. 2h")
      ->type_name("DURATION");
  cmd->add_option("--grace", args->grace_s, "Seconds between SIGTERM and SIGKILL when a check is stopped")
      ->capture_default_str()
      ->type_name("SECONDS");
  auto* quiet = cmd->add_flag("--quiet,-q", args->quiet, "No progress on stderr (warnings and errors only)");
  auto* verbose = cmd->add_flag("--verbose,-v", args->verbose, "Also the checks' progress messages");
  quiet->excludes(verbose);
  add_report_options(cmd, args->report);
  cmd->callback([args, &selected] { selected = [args] { return run_run(*args); }; });
}

}  // namespace gpuqual
