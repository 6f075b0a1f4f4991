// Pure pieces of the runner: a child's outcome → the check's result, the bounded capture, the
// progress lines, the summaries, the journal and the task file round trip.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "core/record/record_io.hpp"
#include "record_builders.hpp"
#include "runner/run/after_abort.hpp"
#include "runner/run/bounded_capture.hpp"
#include "runner/run/check_outcome.hpp"
#include "runner/run/check_task.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/run_journal.hpp"
#include "runner/run/run_summary.hpp"
#include "runner/run/signal_names.hpp"
#include "suites/check.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

OutcomeContext ctx(std::optional<CheckResult> reported = std::nullopt) {
  OutcomeContext c;
  c.check = "gemm";
  c.timeout_s = 120;
  c.timeout_source = "the suite's timeout_s";
  c.grace_s = 10;
  c.started_at = "2026-01-30T14:25:01Z";
  c.reported = std::move(reported);
  return c;
}

CheckResult passed() {
  CheckResult r;
  r.name = "whatever";
  r.status = Status::pass;
  r.metrics.push_back(testing::make_metric("gemm.bf16.tflops", "TFLOP/s", {700, 701}, std::nullopt));
  return r;
}

ChildOutcome exited(int code, const std::string& output = "") {
  ChildOutcome o;
  o.exit_code = code;
  o.elapsed_s = 2.5;
  o.output.append(output);
  return o;
}

TEST(CheckOutcome, ValidResultIsKeptWithTheRunnersTiming) {
  const CheckResult r = result_from_outcome(exited(0), ctx(passed()));
  EXPECT_EQ(r.status, Status::pass);
  EXPECT_EQ(r.name, "gemm");
  EXPECT_EQ(r.started_at, "2026-01-30T14:25:01Z");
  EXPECT_EQ(r.duration_s, 2.5);
  EXPECT_EQ(r.metrics.size(), 1u);
  EXPECT_EQ(r.attributes.count("runner.output_bytes"), 0u);
}

TEST(CheckOutcome, Crash) {
  ChildOutcome o = exited(0, "loading\nSegmentation fault in kernel foo\n");
  o.exit_code.reset();
  o.term_signal = SIGSEGV;
  const CheckResult r = result_from_outcome(o, ctx());
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.reason,
            "crashed: killed by SIGSEGV (Segmentation fault); last output: Segmentation fault in kernel foo");
  EXPECT_EQ(r.attributes.at("runner.output_tail"), "loading\nSegmentation fault in kernel foo");
}

TEST(CheckOutcome, CrashAfterAValidResultKeepsTheMeasurement) {
  ChildOutcome o = exited(0);
  o.exit_code.reset();
  o.term_signal = SIGSEGV;
  const CheckResult r = result_from_outcome(o, ctx(passed()));
  EXPECT_EQ(r.status, Status::pass);
  EXPECT_EQ(r.attributes.at("runner.exit"),
            "killed by SIGSEGV (Segmentation fault) after writing its result");
}

TEST(CheckOutcome, ExitWithoutResult) {
  EXPECT_EQ(result_from_outcome(exited(4, "cannot write\n"), ctx()).reason,
            "exited with status 4 without a result; last output: cannot write");
  EXPECT_EQ(result_from_outcome(exited(0), ctx()).reason, "exited without writing a result");
}

TEST(CheckOutcome, InvalidResult) {
  OutcomeContext c = ctx();
  c.result_problem = "r.json: $.status: unknown status \"ok\"";
  const CheckResult r = result_from_outcome(exited(0), c);
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(r.reason, "returned an invalid result: r.json: $.status: unknown status \"ok\"");
}

TEST(CheckOutcome, TimeoutIsAlwaysErrorAndKeepsWhatWasReported) {
  ChildOutcome o = exited(0);
  o.timed_out = true;
  CheckResult r = result_from_outcome(o, ctx(passed()));
  EXPECT_EQ(r.status, Status::error);
  EXPECT_EQ(
      r.reason,
      "timed out after 120 s (the suite's timeout_s); it ended on SIGTERM; the check had reported pass");
  EXPECT_EQ(r.metrics.size(), 1u);

  o.exit_code.reset();
  o.term_signal = SIGKILL;
  o.killed = true;
  r = result_from_outcome(o, ctx());
  EXPECT_EQ(r.reason,
            "timed out after 120 s (the suite's timeout_s); it did not end within 10 s of SIGTERM and was "
            "killed with SIGKILL");
}

TEST(CheckOutcome, StoppedRun) {
  ChildOutcome o = exited(0);
  o.stopped = true;
  OutcomeContext c = ctx();
  c.stop_cause = "SIGTERM";
  EXPECT_EQ(result_from_outcome(o, c).reason,
            "run interrupted (SIGTERM) while this check was running, after 2.5s");
  CheckResult own;
  own.status = Status::error;
  own.reason = "stopped after 3 of 120 minutes";
  c.reported = own;
  EXPECT_EQ(result_from_outcome(o, c).reason, "stopped after 3 of 120 minutes");
}

TEST(CheckOutcome, SpawnFailure) {
  ChildOutcome o;
  o.spawn_error = "fork: Resource temporarily unavailable";
  EXPECT_EQ(result_from_outcome(o, ctx()).reason,
            "could not start the check process: fork: Resource temporarily unavailable");
}

TEST(CheckOutcome, OutputOfAPassingCheckIsCountedNotKept) {
  const CheckResult r = result_from_outcome(exited(0, "NCCL INFO ...\n"), ctx(passed()));
  EXPECT_EQ(r.attributes.at("runner.output_bytes"), "14");
  EXPECT_EQ(r.attributes.count("runner.output_tail"), 0u);
}

TEST(AfterAbort, OnlyAbnormalEndsAndOnlyChecksThatNeedIt) {
  ChildOutcome o = exited(0);
  EXPECT_FALSE(needs_clean_up(o));
  o.orphans_killed = {123};
  EXPECT_TRUE(needs_clean_up(o));
  ChildOutcome k = exited(0);
  k.exit_code.reset();
  k.term_signal = SIGKILL;
  k.killed = true;
  EXPECT_TRUE(needs_clean_up(k));
  EXPECT_TRUE(clean_up_after_abort("gemm", nlohmann::json::object()).empty());
  // container_probe: its sweep runs; with parameters it cannot use it says so, never throws.
  const auto out = clean_up_after_abort("container_probe", nlohmann::json{{"probes", "nonsense"}});
  ASSERT_FALSE(out.empty());
  EXPECT_THAT(out[0], StartsWith("not removed: "));
}

// The runner knows no check by name: it calls the clean-up a check declared where it registered.
TEST(AfterAbort, CallsTheCleanUpACheckDeclaredWhereItRegistered) {
  int calls = 0;
  nlohmann::json seen;
  ASSERT_TRUE(CheckRegistry::instance().add(
      CheckInfo{"test_after_abort", "test", true, nullptr, [&](const nlohmann::json& params) {
                  ++calls;
                  seen = params;
                  return std::vector<std::string>{"removed x"};
                }}));
  EXPECT_EQ(clean_up_after_abort("test_after_abort", nlohmann::json{{"k", 1}}),
            std::vector<std::string>{"removed x"});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(seen, (nlohmann::json{{"k", 1}}));
  ASSERT_TRUE(CheckRegistry::instance().remove("test_after_abort"));
  EXPECT_TRUE(clean_up_after_abort("test_after_abort", nlohmann::json::object()).empty());
  EXPECT_TRUE(clean_up_after_abort("no_such_check", nlohmann::json::object()).empty());
  const CheckInfo* probe = CheckRegistry::instance().find("container_probe");
  ASSERT_NE(probe, nullptr);
  EXPECT_TRUE(probe->after_abort) << "container_probe declares its sweep where it registers";
}

TEST(SignalNames, NameAndDescription) {
  EXPECT_EQ(signal_name(SIGTERM), "SIGTERM");
  EXPECT_EQ(describe_signal(SIGABRT), "SIGABRT (Aborted)");
  EXPECT_EQ(signal_name(0), "signal 0");
}

TEST(BoundedCapture, SmallOutputIsKeptWhole) {
  BoundedCapture c(4, 8);
  c.append("ab");
  c.append("cdef");
  EXPECT_EQ(c.text(), "abcdef");
  EXPECT_EQ(c.tail(3), "def");
}

TEST(BoundedCapture, LargeOutputKeepsHeadAndTail) {
  BoundedCapture c(4, 8);
  for (int i = 0; i < 1000; ++i) c.append("0123456789");
  EXPECT_EQ(c.total_bytes(), 10000u);
  EXPECT_LE(c.held_bytes(), 4u + 16u);
  EXPECT_EQ(c.text(), "0123\n[... 9988 bytes omitted ...]\n23456789");
  c.append(std::string(100, 'z'));
  EXPECT_EQ(c.text().substr(c.text().size() - 8), "zzzzzzzz");
}

TEST(PrintableText, ControlAndInvalidBytesBecomeQuestionMarks) {
  EXPECT_EQ(printable_text("ok\tline\n"), "ok\tline\n");
  EXPECT_EQ(printable_text("a\x1b[31mb"), "a?[31mb");
  EXPECT_EQ(printable_text("caf\xc3\xa9"), "caf\xc3\xa9");
  EXPECT_EQ(printable_text("bad\xff\xc3"), "bad??");
  EXPECT_EQ(printable_text("\xed\xa0\x80"), "???");  // a UTF-16 surrogate is not UTF-8
}

TEST(Progress, GpuListsAndEta) {
  EXPECT_EQ(format_gpu_list({}), "none");
  EXPECT_EQ(format_gpu_list({3, 0, 1, 2, 5, 7, 6}), "0-3,5-7");
  CheckStart s{1, 7, "gemm", "0-7", 30, 120, 200};
  EXPECT_EQ(eta_s(s, 10), 220);
  EXPECT_EQ(eta_s(s, 45), 200);  // over budget: the current check counts as done
  EXPECT_EQ(format_live_line(s, 12, "bf16 gpu 3", 200),
            "[2/7] gemm  GPUs 0-7  0:12/0:30  ETA 3m38s  bf16 gpu 3");
  EXPECT_EQ(format_live_line(s, 12, "bf16 gpu 3", 30).size(), 29u);  // never wraps
}

TEST(Progress, FinishedLine) {
  CheckResult r;
  r.name = "hbm";
  r.status = Status::error;
  r.reason = "no GPU";
  r.duration_s = 0.4;
  EXPECT_EQ(format_finished_line(3, 7, r), "[4/7] hbm: error (0.4s): no GPU");
}

TEST(Progress, LogModeLinesAreTimestampedAndQuietShowsOnlyWarnings) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  {
    ProgressDisplay d(mem, false, Verbosity::normal);
    d.info("hello");
    d.detail("hidden");
    CheckStart s{0, 1, "gemm", "none", 5, 20, 0};
    d.check_started(s);
    d.check_progress("half way");
    CheckResult r;
    r.name = "gemm";
    r.status = Status::pass;
    d.check_finished(0, 1, r);
  }
  std::fflush(mem);
  std::string text(buf, len);
  EXPECT_THAT(text, ::testing::ContainsRegex(
                        "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z gpuqual: hello"));
  EXPECT_THAT(text, HasSubstr("gpuqual: [1/1] gemm: started (GPUs none, budget 5s, timeout 20s)\n"));
  EXPECT_THAT(text, HasSubstr("gpuqual: [1/1] gemm: pass (0s)\n"));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("hidden")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("half way")));
  EXPECT_THAT(text, ::testing::Not(HasSubstr("\r")));
  std::fclose(mem);
  std::free(buf);

  buf = nullptr;
  mem = open_memstream(&buf, &len);
  {
    ProgressDisplay d(mem, true, Verbosity::quiet);
    d.info("hello");
    d.tick(3);
    d.warning("disk full");
  }
  std::fflush(mem);
  EXPECT_EQ(std::string(buf, len), "warning: disk full\n");
  std::fclose(mem);
  std::free(buf);
}

TEST(Progress, LiveModeRedrawsOneLine) {
  char* buf = nullptr;
  size_t len = 0;
  FILE* mem = open_memstream(&buf, &len);
  {
    ProgressDisplay d(mem, true, Verbosity::normal);
    CheckStart s{0, 2, "gemm", "0-7", 30, 120, 10};
    d.check_started(s);
    d.tick(1);
    CheckResult r;
    r.name = "gemm";
    r.status = Status::pass;
    r.duration_s = 1.5;
    d.check_finished(0, 2, r);
  }
  std::fflush(mem);
  const std::string text(buf, len);
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] gemm  GPUs 0-7  0:01/0:30  ETA 39s"));
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] gemm: pass (1.5s)\n"));
  std::fclose(mem);
  std::free(buf);
}

RunRecord record_with(std::initializer_list<std::pair<const char*, Status>> checks) {
  RunRecord r = testing::make_record(1);
  for (auto [name, status] : checks) {
    CheckResult c;
    c.name = name;
    c.status = status;
    c.reason = status == Status::pass ? "" : "because";
    r.checks.push_back(c);
  }
  return r;
}

TEST(Summary, Unjudged) {
  RunRecord r = record_with({{"a", Status::pass}, {"b", Status::skip}, {"c", Status::error}});
  EXPECT_EQ(status_counts(r), "1 error, 1 skip, 1 pass");
  EXPECT_EQ(unjudged_exit_code(r), 2);
  EXPECT_EQ(unjudged_summary(r, "x.json"),
            "gpuqual: INCONCLUSIVE node-a h200-sxm-141gb: not judged against a baseline (--baseline none); 3 "
            "checks: "
            "1 error, 1 skip, 1 pass; record x.json");
  r = record_with({{"a", Status::pass}, {"b", Status::fail}});
  EXPECT_EQ(unjudged_exit_code(r), 1);
  EXPECT_THAT(unjudged_summary(r, "x.json"), StartsWith("gpuqual: FAIL node-a h200-sxm-141gb:"));
  EXPECT_THAT(unjudged_summary(r, "x.json"), HasSubstr("(b fail: because)"));
  // All passed, still not judged: never exit 0 without a baseline.
  EXPECT_EQ(unjudged_exit_code(record_with({{"a", Status::pass}})), 2);
}

TEST(Summary, Interrupted) {
  const RunRecord r = record_with({{"a", Status::pass}, {"b", Status::error}});
  EXPECT_EQ(interrupted_summary(r, "SIGTERM", 1, 2, "x.json"),
            "gpuqual: INCONCLUSIVE node-a h200-sxm-141gb: run interrupted (SIGTERM) after 1 of 2 checks; 2 "
            "results: 1 error, "
            "1 pass; record x.json");
}

TEST(Journal, PendingChecksAreRunInterruptedUntilTheyFinish) {
  const std::string path = ::testing::TempDir() + "/journal.json";
  RunRecord planned = record_with({{"a", Status::pass}, {"b", Status::pass}});
  planned.ended_at = "";
  RunJournal j(path, planned);
  j.open();
  RunRecord disk = read_record(path);
  EXPECT_FALSE(disk.complete);
  EXPECT_EQ(disk.checks[0].status, Status::error);
  EXPECT_EQ(disk.checks[0].reason, "run interrupted before this check ran");
  j.begin(0, "2026-01-30T14:25:01Z");
  EXPECT_EQ(read_record(path).checks[0].reason, "run interrupted while this check was running");
  CheckResult a;
  a.name = "a";
  a.status = Status::pass;
  j.finish(0, a);
  j.set_pending_reason("run interrupted (SIGTERM) before this check ran");
  j.close(false, "2026-01-30T14:26:00Z");
  disk = read_record(path);
  EXPECT_EQ(disk.checks[0].status, Status::pass);
  EXPECT_EQ(disk.checks[1].reason, "run interrupted (SIGTERM) before this check ran");
  EXPECT_EQ(disk.ended_at, "2026-01-30T14:26:00Z");
  EXPECT_FALSE(disk.complete);
  EXPECT_TRUE(j.last_error().empty());
}

TEST(Journal, AWriteFailureAfterOpenIsReportedNotThrown) {
  const std::string dir = ::testing::TempDir() + "/journal-dir";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  RunJournal j(dir + "/r.json", record_with({{"a", Status::pass}}));
  j.open();
  // The directory is replaced by a file under the run: no write can succeed there any more.
  std::filesystem::remove_all(dir);
  std::ofstream(dir) << "not a directory";
  j.begin(0, "2026-01-30T14:25:01Z");
  EXPECT_THAT(j.last_error(), HasSubstr("r.json"));
  RunJournal bad(dir + "/r.json", record_with({{"a", Status::pass}}));
  EXPECT_THROW(bad.open(), std::runtime_error);
  std::filesystem::remove(dir);
}

TEST(CheckTask, RoundTrip) {
  const std::string path = ::testing::TempDir() + "/task.json";
  RunRecord inv = testing::make_record(2);
  CheckContext ctx;
  ctx.gpus = {1};
  ctx.hardware_class = "h200-sxm-141gb";
  ctx.gpu_unavailable_reason = "";
  ctx.params = nlohmann::json{{"sizes", {4096, 8192}}, {"name", "caf\xc3\xa9"}};
  ctx.budget_s = 12.5;
  ctx.side_dir = "results/x.files";
  std::ofstream(path) << check_task_to_text("gemm", ctx, inv);
  const CheckTask t = read_check_task(path);
  EXPECT_EQ(t.check, "gemm");
  EXPECT_EQ(t.context.gpus, std::vector<int>{1});
  EXPECT_EQ(t.context.node_gpus.size(), 2u);
  EXPECT_EQ(t.context.node_gpus[1].uuid, inv.gpus[1].uuid);
  EXPECT_EQ(t.context.node.hostname, "node-a");
  EXPECT_EQ(t.context.hardware_class, "h200-sxm-141gb");
  EXPECT_EQ(t.context.params, ctx.params);
  EXPECT_EQ(t.context.budget_s, 12.5);
  EXPECT_EQ(t.context.side_dir, "results/x.files");
}

}  // namespace
}  // namespace gpuqual
