// Child processes without a shell (deadline, stop flag, bounded output) and the container
// janitor: what runs when the process that created a container is SIGKILLed, and what does not
// when the probe removed the container itself. Real processes, real signals, real sockets.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>

#include "core/base/subprocess.hpp"
#include "probes/container/container_janitor.hpp"

using namespace gpuqual;
using namespace gpuqual::probes;
namespace fs = std::filesystem;

namespace {

struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/gpuqual-probe-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

bool wait_for(const std::function<bool()>& cond, double seconds) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < end) {
    if (cond()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return cond();
}

// Running (not gone, not a zombie waiting for whoever adopted it to reap it).
bool process_exists(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return false;
  const auto close = text.rfind(')');
  return close != std::string::npos && text.size() > close + 2 && text[close + 2] != 'Z';
}

std::string touch_path() { return find_program("touch"); }

}  // namespace

TEST(ProbeSubprocess, RunsArgvWithoutAShell) {
  const auto r = run_process({"echo", "$HOME", ";", "id", "`x`"}, {});
  ASSERT_TRUE(r.ok()) << r.describe("echo");
  EXPECT_EQ(r.out, "$HOME ; id `x`\n");  // every argument verbatim
}

TEST(ProbeSubprocess, ExitCodeAndStderr) {
  const auto r = run_process({"sh", "-c", "echo err >&2; exit 7"}, {});
  EXPECT_TRUE(r.exited);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.err, "err\n");
  EXPECT_EQ(r.describe("sh"), "sh exited with 7");
}

TEST(ProbeSubprocess, MissingProgramIsReportedNotRun) {
  const auto r = run_process({"gpuqual-no-such-program"}, {});
  EXPECT_EQ(r.spawn_errno, ENOENT);
  EXPECT_FALSE(r.exited);
  EXPECT_NE(r.describe("x").find("cannot run"), std::string::npos);
  EXPECT_THROW(run_process({}, {}), std::invalid_argument);
}

TEST(ProbeSubprocess, DeadlineKillsTheChild) {
  ProcessOptions o;
  o.timeout_s = 0.3;
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run_process({"sleep", "30"}, o);
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.exited);
  EXPECT_EQ(r.term_signal, SIGKILL);
  EXPECT_LT(took, 3.0);
}

TEST(ProbeSubprocess, StopFlagKillsTheChild) {
  std::atomic<bool> stop{false};
  ProcessOptions o;
  o.timeout_s = 30;
  o.stop = &stop;
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    stop = true;
  });
  const auto r = run_process({"sleep", "30"}, o);
  t.join();
  EXPECT_TRUE(r.stopped);
  EXPECT_LT(r.wall_s, 5.0);
}

TEST(ProbeSubprocess, OutputIsBoundedButTheChildIsNotBlocked) {
  ProcessOptions o;
  o.max_output = 1000;
  const auto r = run_process({"head", "-c", "5000000", "/dev/zero"}, o);
  EXPECT_TRUE(r.ok()) << r.describe("head");  // it could write all 5 MB: we drained the pipe
  EXPECT_EQ(r.out.size(), 1000u);
  EXPECT_TRUE(r.out_truncated);
  EXPECT_FALSE(r.err_truncated);
}

TEST(ProbeSubprocess, ExtraEnvironment) {
  ProcessOptions o;
  o.extra_env = {"GPUQUAL_PROBE_TEST=hello world"};
  const auto r = run_process({"printenv", "GPUQUAL_PROBE_TEST"}, o);
  EXPECT_EQ(r.out, "hello world\n");
}

TEST(ProbeSubprocess, ChildDiesWithItsParent) {
  // A runtime client (podman wait) must not outlive the process that started it.
  TempDir dir;
  const fs::path pidfile = dir.path / "pid";
  const pid_t parent = ::fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {
    ProcessOptions o;
    o.timeout_s = 60;
    run_process({"sh", "-c", "echo $$ > " + pidfile.string() + "; exec sleep 60"}, o);
    ::_exit(0);
  }
  ASSERT_TRUE(wait_for([&] { return fs::exists(pidfile) && fs::file_size(pidfile) > 0; }, 10));
  pid_t grandchild = 0;
  std::ifstream(pidfile) >> grandchild;
  ASSERT_GT(grandchild, 0);
  ::kill(parent, SIGKILL);
  ::waitpid(parent, nullptr, 0);
  // The grandchild is re-parented (to init or a subreaper) and killed by PDEATHSIG: it may stay
  // a zombie until its new parent reaps it, so look at its state, not only its existence.
  auto dead = [&] { return !process_exists(grandchild); };
  EXPECT_TRUE(wait_for(dead, 5));
}

TEST(ProbeJanitor, RunsTheRecipeWhenTheCreatorIsKilled) {
  TempDir dir;
  const fs::path marker = dir.path / "removed";
  const fs::path ready = dir.path / "ready";
  CleanupRecipe recipe;
  recipe.argv = {touch_path(), marker.string()};
  ASSERT_FALSE(recipe.argv[0].empty());

  const pid_t creator = ::fork();
  ASSERT_GE(creator, 0);
  if (creator == 0) {
    ContainerJanitor janitor(recipe);
    std::ofstream(ready) << janitor.watcher_pid();
    ::pause();  // "running the container" until SIGKILLed
    ::_exit(0);
  }
  ASSERT_TRUE(wait_for([&] { return fs::exists(ready) && fs::file_size(ready) > 0; }, 10));
  pid_t watcher = 0;
  std::ifstream(ready) >> watcher;
  EXPECT_GT(watcher, 0);
  EXPECT_FALSE(fs::exists(marker));  // nothing happens while the creator lives
  ::kill(creator, SIGKILL);
  ::waitpid(creator, nullptr, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(marker); }, 10)) << "the janitor did not clean up";
  EXPECT_TRUE(wait_for([&] { return !process_exists(watcher); }, 10)) << "the janitor did not exit";
}

TEST(ProbeJanitor, SurvivesAKillOfTheCreatorsProcessGroup) {
  // The runner's watchdog kills a check's whole process group.
  TempDir dir;
  const fs::path marker = dir.path / "removed";
  const fs::path ready = dir.path / "ready";
  CleanupRecipe recipe;
  recipe.argv = {touch_path(), marker.string()};
  const pid_t creator = ::fork();
  ASSERT_GE(creator, 0);
  if (creator == 0) {
    ::setpgid(0, 0);
    ContainerJanitor janitor(recipe);
    std::ofstream(ready) << janitor.watcher_pid();
    ::pause();
    ::_exit(0);
  }
  ASSERT_TRUE(wait_for([&] { return fs::exists(ready) && fs::file_size(ready) > 0; }, 10));
  ::kill(-creator, SIGKILL);
  ::waitpid(creator, nullptr, 0);
  EXPECT_TRUE(wait_for([&] { return fs::exists(marker); }, 10));
}

TEST(ProbeJanitor, DismissedJanitorDoesNothing) {
  TempDir dir;
  const fs::path marker = dir.path / "removed";
  CleanupRecipe recipe;
  recipe.argv = {touch_path(), marker.string()};
  pid_t watcher = 0;
  {
    ContainerJanitor janitor(recipe);
    watcher = janitor.watcher_pid();
    janitor.dismiss();
  }
  EXPECT_TRUE(wait_for([&] { return !process_exists(watcher); }, 5));
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_FALSE(fs::exists(marker));
}

TEST(ProbeJanitor, ReleasedJanitorCleansUpNow) {
  TempDir dir;
  const fs::path marker = dir.path / "removed";
  CleanupRecipe recipe;
  recipe.argv = {touch_path(), marker.string()};
  {
    ContainerJanitor janitor(recipe);  // destroyed without dismiss(): the probe could not remove it
  }
  EXPECT_TRUE(wait_for([&] { return fs::exists(marker); }, 10));
}

TEST(ProbeJanitor, DoesNotHoldTheCreatorsOutputPipe) {
  // The runner reads a check's stdout until EOF: a janitor holding it would stall the runner.
  // Here the janitor keeps working for its whole schedule (`false` never reports a removal).
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t creator = ::fork();
  ASSERT_GE(creator, 0);
  if (creator == 0) {
    ::close(fds[0]);
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    CleanupRecipe recipe;
    recipe.argv = {find_program("false")};
    ContainerJanitor janitor(recipe);
    ::_exit(0);  // dies without dismissing: the janitor starts its removal attempts
  }
  ::close(fds[1]);
  char buf[16];
  const auto t0 = std::chrono::steady_clock::now();
  while (::read(fds[0], buf, sizeof buf) > 0) {
  }
  ::waitpid(creator, nullptr, 0);
  ::close(fds[0]);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 2.0);
}

TEST(ProbeJanitor, DockerApiRecipeSendsTheDeleteOverTheSocket) {
  // A unix-socket server standing in the daemon's place records what the janitor sends.
  TempDir dir;
  const std::string sock = (dir.path / "d.sock").string();
  const int srv = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(srv, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(srv, 4), 0);
  std::string received;
  int requests = 0;
  std::thread server([&] {
    // First answer 204 (removed), then 404 (gone): the janitor stops after confirming.
    for (int i = 0; i < 2; ++i) {
      const int c = ::accept(srv, nullptr, nullptr);
      if (c < 0) return;
      char buf[1024];
      const ssize_t n = ::read(c, buf, sizeof buf);
      if (n > 0 && i == 0) received.assign(buf, static_cast<std::size_t>(n));
      ++requests;
      const char* resp = i == 0 ? "HTTP/1.1 204 No Content\r\n\r\n" : "HTTP/1.1 404 Not Found\r\n\r\n";
      (void)!::write(c, resp, std::strlen(resp));
      ::close(c);
    }
  });
  CleanupRecipe recipe;
  recipe.unix_socket = sock;
  recipe.http_request = "DELETE /containers/gpuqual-x-y-0?force=true&v=true HTTP/1.1\r\nHost: docker\r\n\r\n";
  pid_t watcher = 0;
  {
    JanitorTiming fast;
    ContainerJanitor janitor(recipe, fast);
    watcher = janitor.watcher_pid();
    janitor.release();
  }
  server.join();
  ::close(srv);
  EXPECT_EQ(requests, 2);
  EXPECT_EQ(received.rfind("DELETE /containers/gpuqual-x-y-0?force=true&v=true HTTP/1.1\r\n", 0), 0u)
      << received;
  EXPECT_TRUE(wait_for([&] { return !process_exists(watcher); }, 5));
}
