// On a terminal, `gpuqual run` redraws one live progress line; the summary is still the last line.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "core/base/text_width.hpp"
#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;

class RunTty : public RunFixture {
 protected:
  static std::string capture(const std::string& command) {
    std::string out;
    if (FILE* p = ::popen(command.c_str(), "r")) {
      char buf[4096];
      for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
      ::pclose(p);
    }
    return out;
  }
};

TEST_F(RunTty, LiveLineOnATerminal) {
  write_suite("s",
              "  - check: test_sleep\n    budget_s: 5\n    params: {seconds: 0.8}\n  - check: test_pass\n");
  const std::string suite = path("s.yaml");
  int master = -1;
  const pid_t pid = forkpty(&master, nullptr, nullptr, nullptr);
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (chdir(dir_.c_str()) != 0) _exit(126);
    setenv("TERM", "xterm", 1);
    execl(GPUQUAL_TESTBIN, GPUQUAL_TESTBIN, "run", "--suite", suite.c_str(), "--baseline", "none", "--output",
          "r.json", static_cast<char*>(nullptr));
    _exit(127);
  }
  std::string text;
  char buf[4096];
  ssize_t n;
  while ((n = read(master, buf, sizeof buf)) > 0)
    text.append(buf, static_cast<std::size_t>(n));  // EIO at the end
  int status = 0;
  waitpid(pid, &status, 0);
  close(master);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 2) << text;
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] test_sleep  GPUs none  0:00/0:05  ETA "));
  EXPECT_THAT(text, HasSubstr("\r\033[K[1/2] test_sleep: pass ("));
  EXPECT_THAT(text, HasSubstr("[2/2] test_pass: pass ("));
  EXPECT_THAT(text, ::testing::Not(::testing::ContainsRegex(
                        R"([0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z gpuqual: \[)")));
  EXPECT_THAT(last_line(text), ::testing::StartsWith("gpuqual: INCONCLUSIVE"));
}

// In a real terminal (tmux, 100 columns): the live line never wraps, whatever the check's
// message (wide CJK characters included: width is display columns, not bytes), so every redraw
// replaces it; the pane is captured with wrapped lines joined, so a wrapped line would show.
TEST_F(RunTty, LiveLineFitsARealTerminal) {
  if (std::system("command -v tmux >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "tmux is not installed (scripts/install-deps.sh)";
  std::string text;
  // Far wider than the terminal; a control character is shown as an escape, 4 columns for 1 byte.
  for (int i = 0; i < 30; ++i) text += "\u65e5\u672c\u8a9e \\x01\\x01 ascii ";
  write_suite("s",
              "  - check: test_progress\n    budget_s: 30\n    params: {messages: 2, pause_s: 2, text: \"" +
                  text + "\"}\n");
  const std::string socket = path("tmux.sock");
  const std::string session = "gpuqual-tty";
  const std::string cmd = std::string("cd ") + dir_ + " && TERM=xterm " + GPUQUAL_TESTBIN + " run --suite " +
                          path("s.yaml") + " --baseline none --output r.json; sleep 60";
  const std::string tmux = "tmux -S " + socket + " ";
  ASSERT_EQ(std::system((tmux + "new-session -d -s " + session + " -x 100 -y 40 '" + cmd + "'").c_str()), 0);
  std::string screen;
  bool live = false;
  for (int i = 0; i < 200 && !live; ++i) {
    ::usleep(50 * 1000);
    screen = capture(tmux + "capture-pane -p -J -t " + session);
    live = screen.find("[1/1] test_progress  GPUs none") != std::string::npos &&
           screen.find("\u65e5") != std::string::npos;
  }
  std::system((tmux + "kill-server").c_str());
  ASSERT_TRUE(live) << screen;
  std::istringstream lines(screen);
  for (std::string line; std::getline(lines, line);) {
    while (!line.empty() && line.back() == ' ') line.pop_back();
    if (line.find("test_progress  GPUs none") != std::string::npos) {
      EXPECT_EQ(display_width(line), 99u) << line;  // cut, and the last column stays free
    } else {
      EXPECT_LE(display_width(line), 100u) << line;  // the other lines wrap at a word
    }
  }
}

}  // namespace
}  // namespace gpuqual::testing
