#include "runner/run/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <mutex>
#include <set>

#include "core/base/elapsed.hpp"
#include "runner/run/orphan_reaper.hpp"
#include "runner/run/stop_signal.hpp"

namespace gpuqual {

namespace {

using Clock = std::chrono::steady_clock;

// The children run_child is watching right now, in every thread. Several checks' parts may run
// side by side (runner/run/device_parts.hpp), so the sweep after one child must not take a
// sibling for an orphan: forks and sweeps hold the lock, and a watched child is never swept.
struct WatchedChildren {
  std::mutex lock;
  std::set<int> pids;
};
WatchedChildren& watched() {
  static WatchedChildren w;
  return w;
}

// Moves `fd` to a number >= 10 (close-on-exec), so the dup2 calls in the child cannot clobber
// one pipe with another even when the parent's stdio descriptors were closed.
int high_fd(int fd) {
  const int moved = fcntl(fd, F_DUPFD_CLOEXEC, 10);
  close(fd);
  return moved;
}

void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

// Reads what is available, at most `max_bytes` per call so that a child writing without pause
// cannot starve the watchdog; returns false at EOF (or a read error).
bool read_available(int fd, const std::function<void(std::string_view)>& sink,
                    std::size_t max_bytes = 1u << 20) {
  char buf[65536];
  for (std::size_t done = 0; done < max_bytes;) {
    const ssize_t n = read(fd, buf, sizeof buf);
    if (n > 0) {
      sink(std::string_view(buf, static_cast<std::size_t>(n)));
      done += static_cast<std::size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return true;
    return false;
  }
  return true;
}

class LineSplitter {
 public:
  explicit LineSplitter(const std::function<void(const std::string&)>& sink) : sink_(sink) {}
  void feed(std::string_view data) {
    for (char c : data) {
      if (c == '\n') {
        flush();
      } else if (partial_.size() < kMaxLine) {
        partial_.push_back(c);
      }
    }
  }
  void flush() {
    if (!partial_.empty() && sink_) sink_(printable_text(partial_));
    partial_.clear();
  }

 private:
  static constexpr std::size_t kMaxLine = 400;  // a progress line is a status, not a log
  const std::function<void(const std::string&)>& sink_;
  std::string partial_;
};

// The pipes a check runs with: its stdout and stderr (one pipe), its progress lines, and
// /dev/null for its stdin.
struct ChildPipes {
  int out[2];  // both set by open_pipes, read only after it succeeded
  int prog[2];
  int devnull = -1;
};

// Returns why the pipes could not be made ("" when they were).
std::string open_pipes(ChildPipes& p) {
  if (pipe2(p.out, O_CLOEXEC) != 0) return std::string("pipe: ") + std::strerror(errno);
  if (pipe2(p.prog, O_CLOEXEC) != 0) {
    const std::string why = std::string("pipe: ") + std::strerror(errno);
    close(p.out[0]);
    close(p.out[1]);
    return why;
  }
  for (int* fd : {&p.out[0], &p.out[1], &p.prog[0], &p.prog[1]}) *fd = high_fd(*fd);
  p.devnull = high_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  return "";
}

// In the forked child: only async-signal-safe calls until exec.
[[noreturn]] void exec_child(const ChildPipes& p, pid_t parent, const std::vector<char*>& argv) {
  setpgid(0, 0);
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(127);  // the runner died before prctl took effect
  // Handlers are reset by exec, ignored signals are not: give the check the defaults, except
  // SIGXFSZ, which stays ignored so a file-size limit is an EFBIG error the check can report.
  for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  dup2(p.devnull, 0);
  dup2(p.out[1], 1);
  dup2(p.out[1], 2);
  dup2(p.prog[1], kProgressFd);
  syscall(SYS_close_range, kProgressFd + 1, ~0U, 0);
  execv(argv[0], argv.data());
  const char msg[] = "gpuqual: cannot execute the check program\n";
  [[maybe_unused]] ssize_t n = write(2, msg, sizeof msg - 1);
  _exit(127);
}

// The watchdog: TERM at the deadline or a stop request, KILL after the grace period (or at once
// on a second stop request).
struct Watchdog {
  enum class Phase { running, terminating, killed } phase = Phase::running;
  Clock::time_point term_sent{};
};

void escalate(const ChildSpec& spec, pid_t pid, int level, double elapsed, Watchdog& dog, ChildOutcome& out) {
  if (dog.phase == Watchdog::Phase::running && (level >= 1 || elapsed >= spec.timeout_s)) {
    (level >= 1 ? out.stopped : out.timed_out) = true;
    kill(-pid, SIGTERM);
    dog.phase = Watchdog::Phase::terminating;
    dog.term_sent = Clock::now();
  }
  if (dog.phase == Watchdog::Phase::terminating &&
      (level >= 2 || seconds_since(dog.term_sent) >= spec.grace_s)) {
    kill(-pid, SIGKILL);
    out.killed = true;
    dog.phase = Watchdog::Phase::killed;
  }
}

// How long to sleep: until output, an exit, a stop request, the next deadline or the next tick.
// A pidfd wakes poll() the moment the child exits; without one (old kernel) poll in short ticks.
int wait_ms(const ChildSpec& spec, const Watchdog& dog, double elapsed, bool has_pidfd) {
  double wait_s = has_pidfd ? 0.25 : 0.02;
  if (dog.phase == Watchdog::Phase::running) wait_s = std::min(wait_s, spec.timeout_s - elapsed);
  if (dog.phase == Watchdog::Phase::terminating) {
    wait_s = std::min(wait_s, spec.grace_s - seconds_since(dog.term_sent));
  }
  return std::max(1, static_cast<int>(wait_s * 1000) + 1);
}

// Reads what poll found ready; a pipe at EOF is set to -1 and polled no more.
void drain_ready(const pollfd (&fds)[4], int& out_fd, int& prog_fd, int wake_fd, ChildOutcome& out,
                 LineSplitter& progress) {
  if (out_fd >= 0 && (fds[0].revents & (POLLIN | POLLHUP | POLLERR))) {
    if (!read_available(out_fd, [&](std::string_view d) { out.output.append(d); })) out_fd = -1;
  }
  if (prog_fd >= 0 && (fds[1].revents & (POLLIN | POLLHUP | POLLERR))) {
    if (!read_available(prog_fd, [&](std::string_view d) { progress.feed(d); })) prog_fd = -1;
  }
  if (wake_fd >= 0 && (fds[2].revents & POLLIN)) drain_wake_fd(wake_fd);
}

// Watches the child until it exits: its output, its progress lines, stop requests and the
// deadline. Returns its wait status.
int watch_child(const ChildSpec& spec, pid_t pid, int pidfd, const ChildPipes& pipes,
                Clock::time_point started, LineSplitter& progress, ChildOutcome& out) {
  int out_fd = pipes.out[0], prog_fd = pipes.prog[0];
  Watchdog dog;
  auto last_tick = Clock::now();
  int status = 0;
  bool exited = false;
  while (!exited) {
    const int level = spec.stop_level ? spec.stop_level() : 0;
    const double elapsed = seconds_since(started);
    escalate(spec, pid, level, elapsed, dog, out);
    pollfd fds[4] = {
        {out_fd, POLLIN, 0}, {prog_fd, POLLIN, 0}, {spec.wake_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    const int ready = poll(fds, 4, wait_ms(spec, dog, elapsed, pidfd >= 0));
    if (ready < 0 && errno != EINTR) {
      // Should not happen; fall back to a plain wait so the loop cannot spin.
      usleep(20000);
    }
    drain_ready(fds, out_fd, prog_fd, spec.wake_fd, out, progress);
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) exited = true;
    if (spec.on_tick && seconds_since(last_tick) >= 0.25) {
      last_tick = Clock::now();
      spec.on_tick(seconds_since(started));
    }
  }
  return status;
}

}  // namespace

ChildOutcome run_child(const ChildSpec& spec) {
  ChildOutcome out;
  out.output = BoundedCapture(spec.head_bytes, spec.tail_bytes);
  if (spec.argv.empty()) {
    out.spawn_error = "no program to run";
    return out;
  }
  ChildPipes pipes;
  out.spawn_error = open_pipes(pipes);
  if (!out.spawn_error.empty()) return out;

  // Everything the child needs is prepared before fork: after fork in a threaded process only
  // async-signal-safe calls are allowed until exec.
  std::vector<char*> argv;
  for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  std::unique_lock<std::mutex> forking(watched().lock);
  // Children this process already has (a server a test started, a helper of the caller) are not
  // this check's orphans: the sweep after it leaves them alone.
  const std::vector<int> children_before = children_of(parent);

  const auto started = Clock::now();
  const pid_t pid = fork();
  if (pid == 0) exec_child(pipes, parent, argv);  // nothing but exec in the child
  if (pid > 0) watched().pids.insert(pid);
  forking.unlock();
  if (pid < 0) {
    out.spawn_error = std::string("fork: ") + std::strerror(errno);
    for (int fd : {pipes.out[0], pipes.out[1], pipes.prog[0], pipes.prog[1], pipes.devnull}) close(fd);
    return out;
  }
  out.pid = pid;
  setpgid(pid, pid);  // also here, so the group exists before the first kill(-pid)
  close(pipes.out[1]);
  close(pipes.prog[1]);
  close(pipes.devnull);
  set_nonblocking(pipes.out[0]);
  set_nonblocking(pipes.prog[0]);
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));

  LineSplitter progress(spec.on_progress);
  const int status = watch_child(spec, pid, pidfd, pipes, started, progress, out);
  out.elapsed_s = seconds_since(started);
  if (WIFEXITED(status)) out.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) out.term_signal = WTERMSIG(status);

  // The child is gone; what it started is not welcome to stay.
  kill(-pid, SIGKILL);
  ReapResult reaped;
  {
    std::lock_guard<std::mutex> sweeping(watched().lock);
    watched().pids.erase(pid);
    std::vector<int> keep = children_before;
    keep.insert(keep.end(), watched().pids.begin(), watched().pids.end());
    reaped = reap_orphans(5.0, keep);
  }
  out.orphans_killed = reaped.killed;
  out.orphans_unkillable = reaped.unkillable;
  // What is still in the pipes: its writers are dead, so this is at most a pipe buffer.
  read_available(pipes.out[0], [&](std::string_view d) { out.output.append(d); });
  read_available(pipes.prog[0], [&](std::string_view d) { progress.feed(d); });
  progress.flush();
  close(pipes.out[0]);
  close(pipes.prog[0]);
  if (pidfd >= 0) close(pidfd);
  return out;
}

}  // namespace gpuqual
