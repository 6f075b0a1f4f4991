// The runner survives checks that crash, abort, exit, throw, hang, ignore SIGTERM, leave
// processes behind, flood their output or fill a file-size quota; it records each one right,
// and no process is left behind.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunIsolation : public RunFixture {
 protected:
  std::string entry(const std::string& check, const std::string& params = "", double timeout_s = 10) const {
    std::string p = "pid_file: \"" + pid_file() + "\"";
    if (!params.empty()) p += ", " + params;
    return fmt::format("  - check: {}\n    budget_s: 1\n    timeout_s: {}\n    params: {{{}}}\n", check,
                       timeout_s, p);
  }
};

TEST_F(RunIsolation, EachMisbehaviourIsRecordedAndTheRunGoesOn) {
  write_suite("bad", entry("test_segfault") + entry("test_abort") + entry("test_exit", "code: 7") +
                         entry("test_throw") + entry("test_bad_result") + entry("test_grandchild") +
                         entry("test_pass"));
  const auto r = gpuqual({"run", "--suite", path("bad.yaml"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  const RunRecord rec = record();
  EXPECT_TRUE(rec.complete);

  const CheckResult& segv = check(rec, "test_segfault");
  EXPECT_EQ(segv.status, Status::error);
  EXPECT_THAT(segv.reason, StartsWith("crashed: killed by SIGSEGV (Segmentation fault)"));
  EXPECT_THAT(segv.reason, HasSubstr("last output: about to crash"));
  EXPECT_THAT(segv.attributes.at("runner.output_tail"), HasSubstr("about to crash"));

  const CheckResult& abrt = check(rec, "test_abort");
  EXPECT_EQ(abrt.status, Status::error);
  EXPECT_THAT(abrt.reason, StartsWith("crashed: killed by SIGABRT (Aborted)"));

  const CheckResult& ex = check(rec, "test_exit");
  EXPECT_EQ(ex.status, Status::error);
  EXPECT_EQ(ex.reason, "exited with status 7 without a result; last output: leaving early");

  const CheckResult& th = check(rec, "test_throw");
  EXPECT_EQ(th.status, Status::error);
  EXPECT_EQ(th.reason, "check threw: planted exception");

  const CheckResult& bad = check(rec, "test_bad_result");
  EXPECT_EQ(bad.status, Status::error);
  EXPECT_THAT(bad.reason, StartsWith("returned an invalid result: "));
  EXPECT_THAT(bad.reason, HasSubstr("$.metrics[0].gpu: GPU 7 is not a GPU of this node"));
  EXPECT_TRUE(bad.metrics.empty());  // nothing of an invalid result reaches the record

  // The check returned pass and left two processes: the result stands, the processes do not.
  const CheckResult& gc = check(rec, "test_grandchild");
  EXPECT_EQ(gc.status, Status::pass);
  EXPECT_EQ(gc.attributes.at("runner.orphans_killed"), "2");

  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
  const auto pids = read_pids(pid_file());
  EXPECT_EQ(std::count_if(pids.begin(), pids.end(), [](auto& p) { return p.first == "daemon"; }), 1);
  EXPECT_EQ(std::count_if(pids.begin(), pids.end(), [](auto& p) { return p.first == "grandchild"; }), 1);
  expect_all_pids_gone();
}

TEST_F(RunIsolation, TimeoutStopsACheckThatHonoursSigterm) {
  write_suite("t", entry("test_sleep", "seconds: 60", 1) + entry("test_pass"));
  const auto r = gpuqual({"run", "--suite", path("t.yaml"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.seconds, 8);
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_sleep");
  EXPECT_EQ(c.status, Status::error);
  EXPECT_THAT(c.reason,
              StartsWith("timed out after 1 s (the suite's timeout_s); it ended on SIGTERM; the check had "
                         "reported error: stopped after"));
  EXPECT_GE(c.duration_s, 1.0);
  EXPECT_EQ(check(record(), "test_pass").status, Status::pass);
  expect_all_pids_gone();
}

TEST_F(RunIsolation, TimeoutKillsACheckThatIgnoresSigterm) {
  write_suite("t", entry("test_ignore_term", "", 1) + entry("test_pass"));
  const auto r = gpuqual(
      {"run", "--suite", path("t.yaml"), "--baseline", "none", "--output", "r.json", "--grace", "0.5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.seconds, 8);
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_ignore_term");
  EXPECT_EQ(c.status, Status::error);
  EXPECT_THAT(c.reason,
              StartsWith("timed out after 1 s (the suite's timeout_s); it did not end within 0 s of SIGTERM "
                         "and was killed with SIGKILL"));
  EXPECT_EQ(check(record(), "test_pass").status, Status::pass);
  expect_all_pids_gone();
}

TEST_F(RunIsolation, RunTimeoutStopsTheRunningCheckAndRecordsTheRestAsNotRun) {
  write_suite("t", entry("test_sleep", "seconds: 60", 60) + entry("test_pass"));
  const auto r = gpuqual(
      {"run", "--suite", path("t.yaml"), "--baseline", "none", "--output", "r.json", "--timeout", "1s"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_LT(r.seconds, 8);
  const RunRecord rec = record();
  EXPECT_FALSE(rec.complete);
  EXPECT_THAT(check(rec, "test_sleep").reason, StartsWith("timed out after 1 s (the run's --timeout of 1s)"));
  EXPECT_EQ(check(rec, "test_pass").status, Status::error);
  EXPECT_EQ(check(rec, "test_pass").reason, "not run: the run's --timeout of 1s was reached");
  expect_all_pids_gone();
}

TEST_F(RunIsolation, HugeOutputCostsBoundedMemory) {
  // The same binary without the flood first: its own peak (CUDA libraries mapped) is the base.
  write_suite("quiet", entry("test_pass"));
  const auto base =
      gpuqual({"run", "--suite", path("quiet.yaml"), "--baseline", "none", "--output", "q.json"});
  write_suite("h", entry("test_huge_output", "mib: 256", 60) + entry("test_pass"));
  const auto r = gpuqual({"run", "--suite", path("h.yaml"), "--baseline", "none", "--output", "r.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_huge_output");
  EXPECT_EQ(c.status, Status::pass);
  EXPECT_EQ(c.attributes.at("runner.output_bytes"),
            std::to_string((256u << 20) + std::string("the last line of a flood\n").size()));
  // 256 MiB went through the pipe; the runner's peak grew by far less than that.
  EXPECT_LT(r.max_rss_kib, base.max_rss_kib + 32 * 1024)
      << "peak RSS " << r.max_rss_kib << " KiB, without the flood " << base.max_rss_kib << " KiB";
  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
}

TEST_F(RunIsolation, ACheckThatFillsItsQuotaIsAnErrorAndTheRecordStaysValid) {
  write_suite("q", entry("test_fill_disk", "max_mib: 64") + entry("test_pass"));
  ProcOptions opts;
  opts.file_size_limit = 2u << 20;  // each file may grow to 2 MiB: the side file hits it, the record does not
  const auto r =
      gpuqual({"run", "--suite", path("q.yaml"), "--baseline", "none", "--output", "r.json"}, opts);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "test_fill_disk");
  EXPECT_EQ(c.status, Status::error);
  EXPECT_EQ(c.reason, "side file full after 2 MiB: File too large");
  EXPECT_EQ(check(record(), "test_pass").status, Status::pass);
}

TEST_F(RunIsolation, ARecordThatCannotBeWrittenIsExit3BeforeAnyCheckRuns) {
  write_suite("q", entry("test_pass"));
  ProcOptions opts;
  opts.file_size_limit = 300;  // smaller than the first record
  const auto r =
      gpuqual({"run", "--suite", path("q.yaml"), "--baseline", "none", "--output", "r.json"}, opts);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.err, HasSubstr("r.json: cannot write the run record"));
  EXPECT_THAT(r.err, HasSubstr("File too large"));
  EXPECT_FALSE(std::filesystem::exists(path("pids.txt")));  // test_pass never ran
}

}  // namespace
}  // namespace gpuqual::testing
