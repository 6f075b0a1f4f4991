#include "core/base/subprocess.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <stdexcept>

extern char** environ;

namespace gpuqual {

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// Appends what is readable on `fd` to `sink` up to `cap` bytes; drops the rest so the child is
// never blocked on a full pipe. Returns false at EOF.
bool drain(int fd, std::string& sink, std::size_t cap, bool& truncated) {
  char buf[65536];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n == 0) return false;
  if (n < 0) return errno == EINTR || errno == EAGAIN;
  const std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
  const std::size_t take = std::min<std::size_t>(room, static_cast<std::size_t>(n));
  sink.append(buf, take);
  if (take < static_cast<std::size_t>(n)) truncated = true;
  return true;
}

std::vector<std::string> merged_environment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> env;
  for (char** e = environ; e && *e; ++e) {
    std::string kv(*e);
    env[kv.substr(0, kv.find('='))] = kv;
  }
  for (const auto& kv : extra) env[kv.substr(0, kv.find('='))] = kv;
  std::vector<std::string> out;
  out.reserve(env.size());
  for (auto& [k, kv] : env) out.push_back(std::move(kv));
  return out;
}

struct Pipe {
  Fd read_end, write_end;
};

void open_pipe(Pipe& p) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  p.read_end.fd = fds[0];
  p.write_end.fd = fds[1];
}

// The child's output pipes and the one that carries execve's errno back (closed on a successful
// exec by O_CLOEXEC, so an empty read means the program runs).
struct ChildPipes {
  Pipe out, err, exec;
  bool merged = false;  // no err pipe: stderr writes into `out`

  explicit ChildPipes(bool merge_stderr) : merged(merge_stderr) {
    open_pipe(out);
    if (!merged) open_pipe(err);
    open_pipe(exec);
  }
};

// Everything the child needs, prepared before fork: after fork only async-signal-safe calls.
// Built in place and never copied: `argv` and `env` point into the strings.
struct ChildImage {
  std::string path;
  std::vector<char*> argv;
  std::vector<std::string> env_strings;
  std::vector<char*> env;

  ChildImage(const std::vector<std::string>& args, const std::string& resolved,
             const std::vector<std::string>& extra_env)
      : path(resolved), env_strings(merged_environment(extra_env)) {
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : env_strings) env.push_back(const_cast<char*>(e.c_str()));
    env.push_back(nullptr);
  }
  ChildImage(const ChildImage&) = delete;
  ChildImage& operator=(const ChildImage&) = delete;
};

// Forks and execs `image`; returns the child's pid. The parent's ends of the write pipes are
// closed, so EOF on `out`/`err` means every writer is gone.
pid_t spawn_child(const ChildImage& image, ChildPipes& pipes) {
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  if (pid == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
    const int devnull = ::open("/dev/null", O_RDONLY);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(pipes.out.write_end.fd, 1);
    ::dup2(pipes.merged ? pipes.out.write_end.fd : pipes.err.write_end.fd, 2);
    ::signal(SIGPIPE, SIG_DFL);
    ::execve(image.path.c_str(), image.argv.data(), image.env.data());
    const int e = errno;
    (void)!::write(pipes.exec.write_end.fd, &e, sizeof e);
    ::_exit(127);
  }
  pipes.out.write_end.reset();
  pipes.err.write_end.reset();
  pipes.exec.write_end.reset();
  return pid;
}

// Kills the child once at the deadline or when the stop flag is set; the caller keeps draining
// (the pipes close when the child is gone).
void kill_when_due(pid_t pid, Clock::time_point deadline, const ProcessOptions& options,
                   ProcessResult& result, bool& killed) {
  if (Clock::now() >= deadline) {
    result.timed_out = true;
  } else if (options.stop && options.stop->load()) {
    result.stopped = true;
  }
  if (result.timed_out || result.stopped) {
    ::kill(pid, SIGKILL);
    killed = true;
  }
}

// Reads both pipes until EOF on each, killing the child when due; returns its wait status.
int pump_until_done(pid_t pid, ChildPipes& pipes, Clock::time_point deadline, const ProcessOptions& options,
                    ProcessResult& result) {
  bool out_open = true, err_open = !pipes.merged, killed = false, reaped = false;
  int status = 0;
  Clock::time_point reaped_at{};
  while (out_open || err_open) {
    if (!killed && !reaped) kill_when_due(pid, deadline, options, result, killed);
    pollfd fds[2] = {{out_open ? pipes.out.read_end.fd : -1, POLLIN, 0},
                     {err_open ? pipes.err.read_end.fd : -1, POLLIN, 0}};
    const int n = ::poll(fds, 2, 50);
    if (n < 0 && errno != EINTR) break;
    if (n > 0) {
      if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
        out_open = drain(pipes.out.read_end.fd, result.out, options.max_output, result.out_truncated);
      if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
        err_open = drain(pipes.err.read_end.fd, result.err, options.max_output, result.err_truncated);
    }
    // A daemon the child left behind (conmon, a shim) may hold the pipes open after the child
    // exited: read what is there for a short while, then stop waiting for EOF.
    if (!reaped && ::waitpid(pid, &status, WNOHANG) == pid) {
      reaped = true;
      reaped_at = Clock::now();
    }
    if (reaped && Clock::now() - reaped_at > std::chrono::milliseconds(300)) break;
  }
  if (!reaped) {
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  return status;
}

void record_exit(int status, ProcessResult& result) {
  if (WIFEXITED(status)) {
    result.exited = true;
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.term_signal = WTERMSIG(status);
  }
  if (result.spawn_errno) result.exited = false;
}

}  // namespace

std::string ProcessResult::describe(const std::string& program) const {
  if (spawn_errno) return fmt::format("cannot run {}: {}", program, std::strerror(spawn_errno));
  if (timed_out) return fmt::format("{} timed out after {:.1f} s", program, wall_s);
  if (stopped) return fmt::format("{} stopped (run interrupted)", program);
  if (!exited) return fmt::format("{} killed by signal {}", program, term_signal);
  return fmt::format("{} exited with {}", program, exit_code);
}

std::string find_program(const std::string& program) {
  if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0 ? program : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    std::size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    const std::string dir = end > start ? dirs.substr(start, end - start) : std::string(".");
    std::string candidate = dir + "/" + program;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    start = end + 1;
  }
  return "";
}

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argv");
  ProcessResult result;
  const auto t0 = Clock::now();
  const std::string resolved = find_program(argv[0]);
  if (resolved.empty()) {
    result.spawn_errno = ENOENT;
    return result;
  }
  const ChildImage image(argv, resolved, options.extra_env);
  ChildPipes pipes(options.merge_stderr);
  const pid_t pid = spawn_child(image, pipes);

  int exec_errno = 0;
  if (::read(pipes.exec.read_end.fd, &exec_errno, sizeof exec_errno) == sizeof exec_errno)
    result.spawn_errno = exec_errno;

  const auto deadline =
      t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(options.timeout_s));
  record_exit(pump_until_done(pid, pipes, deadline, options, result), result);
  result.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  return result;
}

}  // namespace gpuqual
