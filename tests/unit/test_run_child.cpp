// The child-process watchdog on real processes (/bin/sh): exit codes, signals, the timeout's
// TERM then KILL, the process group and escaped daemons killed, output bounded, progress
// lines, stop requests.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <fstream>

#include "process_helpers.hpp"
#include "runner/run/child_process.hpp"
#include "runner/run/orphan_reaper.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;

ChildSpec sh(const std::string& script, double timeout_s = 10, double grace_s = 1) {
  ChildSpec s;
  s.argv = {"/bin/sh", "-c", script};
  s.timeout_s = timeout_s;
  s.grace_s = grace_s;
  return s;
}

class ChildProcess : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(become_subreaper()); }
};

TEST_F(ChildProcess, ExitCodeAndOutput) {
  const ChildOutcome o = run_child(sh("echo hello; echo oops >&2; exit 3"));
  ASSERT_TRUE(o.exit_code);
  EXPECT_EQ(*o.exit_code, 3);
  EXPECT_FALSE(o.term_signal);
  EXPECT_FALSE(o.timed_out);
  EXPECT_EQ(o.output.text(), "hello\noops\n");
  EXPECT_TRUE(o.orphans_killed.empty());
}

// A child the caller already had (a test's loopback server, a helper) is not the check's orphan:
// the sweep after the check leaves it running (it once killed the network tests' server).
TEST_F(ChildProcess, ChildrenFromBeforeTheCheckAreNotItsOrphans) {
  const pid_t sleeper = fork();
  ASSERT_GE(sleeper, 0);
  if (sleeper == 0) {
    execl("/bin/sleep", "sleep", "30", static_cast<char*>(nullptr));
    _exit(127);
  }
  const ChildOutcome o = run_child(sh("true"));
  EXPECT_TRUE(o.orphans_killed.empty());
  EXPECT_EQ(kill(sleeper, 0), 0) << "the earlier child was killed";
  // What the check itself leaves behind is still killed.
  const ChildOutcome daemon = run_child(sh("setsid sleep 30 >/dev/null 2>&1 & exit 0"));
  EXPECT_EQ(daemon.orphans_killed.size(), 1u);
  EXPECT_EQ(kill(sleeper, 0), 0);
  kill(sleeper, SIGKILL);
  waitpid(sleeper, nullptr, 0);
}

TEST_F(ChildProcess, KilledBySignal) {
  const ChildOutcome o = run_child(sh("kill -SEGV $$"));
  ASSERT_TRUE(o.term_signal);
  EXPECT_EQ(*o.term_signal, SIGSEGV);
}

TEST_F(ChildProcess, TimeoutSendsTermToTheGroup) {
  const ChildOutcome o = run_child(sh("sleep 30", 0.3, 5));
  EXPECT_TRUE(o.timed_out);
  EXPECT_FALSE(o.killed);
  ASSERT_TRUE(o.term_signal);
  EXPECT_EQ(*o.term_signal, SIGTERM);
  EXPECT_LT(o.elapsed_s, 3);
  EXPECT_GE(o.elapsed_s, 0.3);
}

TEST_F(ChildProcess, TermIgnoredMeansKillAfterGrace) {
  const ChildOutcome o = run_child(sh("trap '' TERM; while :; do sleep 0.05; done", 0.2, 0.3));
  EXPECT_TRUE(o.timed_out);
  EXPECT_TRUE(o.killed);
  ASSERT_TRUE(o.term_signal);
  EXPECT_EQ(*o.term_signal, SIGKILL);
  EXPECT_GE(o.elapsed_s, 0.5);
  EXPECT_LT(o.elapsed_s, 3);
}

TEST_F(ChildProcess, GrandchildrenInTheGroupAndEscapedDaemonsAreKilled) {
  const std::string pids = ::testing::TempDir() + "/child-pids.txt";
  std::remove(pids.c_str());
  // One background sleep in the group, one that escapes it with setsid; the shell exits at once.
  const ChildOutcome o = run_child(
      sh("sleep 300 & echo $! >> " + pids + "; setsid sleep 300 & echo $! >> " + pids + "; exit 0"));
  EXPECT_EQ(o.exit_code.value_or(-1), 0);
  std::ifstream in(pids);
  std::vector<pid_t> left;
  pid_t p;
  while (in >> p) left.push_back(p);
  ASSERT_EQ(left.size(), 2u);
  for (pid_t pid : left) EXPECT_FALSE(testing::process_exists(pid)) << pid;
  EXPECT_EQ(o.orphans_killed.size(), 2u);
}

TEST_F(ChildProcess, OutputIsBoundedHeadAndTail) {
  ChildSpec s = sh("echo FIRST; head -c 10000000 /dev/zero | tr '\\0' x; echo; echo LAST");
  s.head_bytes = 100;
  s.tail_bytes = 200;
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.output.total_bytes(), 6u + 10000000u + 1u + 5u);
  EXPECT_LE(o.output.held_bytes(), 100u + 2 * 200u);
  const std::string text = o.output.text();
  EXPECT_EQ(text.substr(0, 6), "FIRST\n");
  EXPECT_THAT(text, HasSubstr("bytes omitted"));
  EXPECT_EQ(text.substr(text.size() - 5), "LAST\n");
}

TEST_F(ChildProcess, ProgressLinesFromFd3) {
  ChildSpec s = sh("echo 'step 1' >&3; echo 'step 2' >&3; printf 'no newline' >&3");
  std::vector<std::string> lines;
  s.on_progress = [&](const std::string& l) { lines.push_back(l); };
  run_child(s);
  EXPECT_EQ(lines, (std::vector<std::string>{"step 1", "step 2", "no newline"}));
}

TEST_F(ChildProcess, StopRequestTermsAndKillsNowOnTheSecond) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::atomic<int> level{0};
  ChildSpec s = sh("trap '' TERM; while :; do sleep 0.05; done", 30, 30);
  s.stop_level = [&] { return level.load(); };
  s.wake_fd = fds[0];
  int ticks = 0;
  s.on_tick = [&](double elapsed) {
    ++ticks;
    if (elapsed > 0.2 && level == 0) level = 1;  // first request: TERM (ignored)
    if (elapsed > 0.6 && level == 1) level = 2;  // second: KILL without waiting 30 s
  };
  const ChildOutcome o = run_child(s);
  EXPECT_TRUE(o.stopped);
  EXPECT_FALSE(o.timed_out);
  EXPECT_TRUE(o.killed);
  EXPECT_LT(o.elapsed_s, 5);
  EXPECT_GT(ticks, 0);
  close(fds[0]);
  close(fds[1]);
}

TEST_F(ChildProcess, MissingProgramIsAnExitNotACrash) {
  ChildSpec s;
  s.argv = {"/nonexistent/program"};
  const ChildOutcome o = run_child(s);
  EXPECT_EQ(o.exit_code.value_or(-1), 127);
  EXPECT_THAT(o.output.text(), HasSubstr("cannot execute"));
}

}  // namespace
}  // namespace gpuqual
