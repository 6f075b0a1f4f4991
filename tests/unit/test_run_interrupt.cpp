// Killing `gpuqual run` mid-way: SIGTERM and SIGINT stop it cleanly (exit 2, the running check
// stopped, the rest "run interrupted"); SIGKILL leaves the record as last written, which is
// valid and says which checks did not finish. No check process survives either way.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/prctl.h>

#include <fmt/format.h>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class RunInterrupt : public RunFixture {
 protected:
  void write_three(const std::string& middle = "test_sleep") {
    write_suite("k", fmt::format("  - check: test_pass\n"
                                 "  - check: {}\n    budget_s: 1\n    timeout_s: 120\n"
                                 "    params: {{seconds: 120, pid_file: \"{}\"}}\n"
                                 "  - check: test_skip\n",
                                 middle, pid_file()));
  }
  std::vector<std::string> args(std::vector<std::string> extra = {}) {
    std::vector<std::string> a{"run", "--suite", path("k.yaml"), "--baseline", "none", "--output", "r.json"};
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  }
  pid_t check_pid() const { return read_pids(pid_file()).at(0).second; }
};

TEST_F(RunInterrupt, SigtermStopsTheRunKeepsWhatFinishedAndExits2) {
  write_three();
  const Proc p = start_gpuqual(args());
  ASSERT_TRUE(wait_for_pid("check"));
  kill(p.pid, SIGTERM);
  const auto r = wait_process(p, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: INCONCLUSIVE"));
  EXPECT_THAT(last_line(r.out), HasSubstr("run interrupted (SIGTERM) after 2 of 3 checks"));
  const RunRecord rec = record();
  // The summary's counts add up to the number they are of (the 3 checks and the run's Xid watch).
  EXPECT_THAT(last_line(r.out), HasSubstr(fmt::format("; {} results: ", rec.checks.size())));
  EXPECT_FALSE(rec.complete);
  EXPECT_FALSE(rec.ended_at.empty());
  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
  // The sleeping check saw the stop request and reported what it had done, as a burn-in would.
  EXPECT_EQ(check(rec, "test_sleep").status, Status::error);
  EXPECT_THAT(check(rec, "test_sleep").reason, StartsWith("stopped after"));
  EXPECT_EQ(check(rec, "test_skip").status, Status::error);
  EXPECT_EQ(check(rec, "test_skip").reason, "run interrupted (SIGTERM) before this check ran");
  expect_all_pids_gone();
}

TEST_F(RunInterrupt, SigintKillsACheckThatIgnoresTermAfterTheGracePeriod) {
  write_three("test_ignore_term");
  const Proc p = start_gpuqual(args({"--grace", "0.5"}));
  ASSERT_TRUE(wait_for_pid("check"));
  kill(p.pid, SIGINT);
  const auto r = wait_process(p, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 10);
  const RunRecord rec = record();
  EXPECT_EQ(check(rec, "test_ignore_term").status, Status::error);
  EXPECT_THAT(check(rec, "test_ignore_term").reason,
              StartsWith("run interrupted (SIGINT) while this check was running"));
  EXPECT_EQ(check(rec, "test_skip").reason, "run interrupted (SIGINT) before this check ran");
  expect_all_pids_gone();
}

TEST_F(RunInterrupt, ASecondSignalSkipsTheGracePeriod) {
  write_three("test_ignore_term");
  const Proc p = start_gpuqual(args({"--grace", "300"}));
  ASSERT_TRUE(wait_for_pid("check"));
  kill(p.pid, SIGTERM);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(p.pid, SIGTERM);
  const auto r = wait_process(p, 30);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_LT(r.seconds, 10);
  EXPECT_THAT(check(record(), "test_ignore_term").reason, StartsWith("run interrupted (SIGTERM)"));
  expect_all_pids_gone();
}

TEST_F(RunInterrupt, SigkillLeavesAValidRecordOfWhatFinished) {
  // Orphans of the killed runner are re-parented here, so this test can reap and see them.
  ASSERT_EQ(prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), 0);
  write_suite("k", fmt::format("  - check: test_segfault\n    params: {{pid_file: \"{0}\"}}\n"
                               "  - check: test_pass\n"
                               "  - check: test_sleep\n    params: {{seconds: 120, pid_file: \"{0}\"}}\n"
                               "  - check: test_skip\n",
                               pid_file()));
  const Proc p = start_gpuqual(args());
  // The second pid line: the sleep check is running.
  const auto t0 = std::chrono::steady_clock::now();
  while (read_pids(pid_file()).size() < 2 &&
         std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(read_pids(pid_file()).size(), 2u);
  const pid_t sleeper = read_pids(pid_file()).at(1).second;

  // While it runs, the record on disk already holds every finished check.
  RunRecord rec = record();
  EXPECT_FALSE(rec.complete);
  EXPECT_THAT(check(rec, "test_segfault").reason, StartsWith("crashed: killed by SIGSEGV"));
  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
  EXPECT_EQ(check(rec, "test_sleep").reason, "run interrupted while this check was running");

  kill(p.pid, SIGKILL);
  const auto r = wait_process(p, 30);
  EXPECT_EQ(r.signal, SIGKILL);
  // The check process dies with its runner (PR_SET_PDEATHSIG).
  int status = 0;
  pid_t got = 0;
  const auto t1 = std::chrono::steady_clock::now();
  while ((got = waitpid(sleeper, &status, WNOHANG)) == 0 &&
         std::chrono::steady_clock::now() - t1 < std::chrono::seconds(10)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_EQ(got, sleeper) << "the check process outlived its runner";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

  rec = record();
  EXPECT_FALSE(rec.complete);
  EXPECT_TRUE(rec.ended_at.empty());
  EXPECT_THAT(check(rec, "test_segfault").reason, StartsWith("crashed: killed by SIGSEGV"));
  EXPECT_EQ(check(rec, "test_pass").status, Status::pass);
  EXPECT_EQ(check(rec, "test_sleep").status, Status::error);
  EXPECT_EQ(check(rec, "test_sleep").reason, "run interrupted while this check was running");
  EXPECT_EQ(check(rec, "test_skip").status, Status::error);
  EXPECT_EQ(check(rec, "test_skip").reason, "run interrupted before this check ran");
  expect_all_pids_gone();
}

}  // namespace
}  // namespace gpuqual::testing
