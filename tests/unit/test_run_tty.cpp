// On a terminal, `gpuqual run` redraws one live progress line; the summary is still the last line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;

class RunTty : public RunFixture {};

TEST_F(RunTty, LiveLineOnATerminal) {
  write_suite("s", "  - check: test_sleep\n    budget_s: 5\n    params: {seconds: 0.8}\n  - check: test_pass\n");
  const std::string suite = path("s.yaml");
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (chdir(dir_.c_str()) != 0) _exit(126);
    setenv("TERM", "xterm", 1);
    execl(GPUQUAL_TESTBIN, GPUQUAL_TESTBIN, "run", "--suite", suite.c_str(), "--baseline", "none", "--output", "r.json",
          static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(master, buf, sizeof buf)) > 0) text.append(buf, static_cast<std::size_t>(n));  // EIO at the end
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << text;
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] test_sleep  GPUs none  0:00/0:05  ETA "));
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] test_sleep: pass ("));
  EXPECT_THAT(text, HasSubstr("[2/2] test_pass: pass ("));
  EXPECT_THAT(text, ::testing::Not(::testing::ContainsRegex(R"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z gpuqual: \[)")));
  EXPECT_THAT(last_line(text), ::testing::StartsWith("gpuqual: INCONCLUSIVE"));
}

}  // namespace
}  // namespace gpuqual::testing
