#include "probes/container/container_janitor.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <vector>

extern char** environ;

namespace gpuqual::probes {

namespace {

// Everything the watcher touches after fork, prepared before it.
struct Prepared {
  bool use_http = false;
  sockaddr_un addr{};
  const char* request = nullptr;
  std::size_t request_len = 0;
  const char* path = nullptr;
  std::vector<char*> argv;
  std::vector<char*> envp;
  JanitorTiming timing;
};

void sleep_ms(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (::nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

long now_ms() {
  timespec ts{};
  ::clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

enum Attempt { kRemoved, kNotFound, kFailed };

Attempt http_attempt(const Prepared& p) {
  const int s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) return kFailed;
  timeval tv{10, 0};
  ::setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  ::setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (::connect(s, reinterpret_cast<const sockaddr*>(&p.addr), sizeof p.addr) != 0) {
    ::close(s);
    return kFailed;
  }
  std::size_t sent = 0;
  while (sent < p.request_len) {
    const ssize_t n = ::write(s, p.request + sent, p.request_len - sent);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      ::close(s);
      return kFailed;
    }
    sent += static_cast<std::size_t>(n);
  }
  // "HTTP/1.1 204 No Content": the status is at bytes 9..11.
  char buf[64];
  std::size_t got = 0;
  while (got < 12) {
    const ssize_t n = ::read(s, buf + got, sizeof buf - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  ::close(s);
  if (got < 12 || buf[0] != 'H') return kFailed;
  if (buf[9] == '2') return kRemoved;
  if (buf[9] == '4' && buf[10] == '0' && buf[11] == '4') return kNotFound;
  return kFailed;
}

Attempt exec_attempt(const Prepared& p) {
  const pid_t pid = ::fork();
  if (pid < 0) return kFailed;
  if (pid == 0) {
    ::execve(p.path, p.argv.data(), p.envp.data());
    ::_exit(127);
  }
  int status = 0;
  const long give_up = now_ms() + 60000;  // a hung `podman rm` must not hold the watcher forever
  while (true) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) break;
    if (r < 0 && errno != EINTR) return kFailed;
    if (now_ms() > give_up) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return kFailed;
    }
    sleep_ms(20);
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return kRemoved;
  return kNotFound;  // CLIs say "no such container" with a non-zero exit; keep trying anyway
}

[[noreturn]] void watch(int read_fd, const Prepared& p) {
  // A name a supervisor can recognise (ps, /proc/<pid>/comm): a runner that reaps orphans
  // should leave "gpuqual-janitor" processes to finish; they end by themselves within seconds.
  ::prctl(PR_SET_NAME, "gpuqual-janitor", 0, 0, 0);
  // Our own session (set by the intermediate child); no inherited signal dispositions or mask.
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGHUP, SIG_IGN);
  ::signal(SIGINT, SIG_IGN);
  ::signal(SIGTERM, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
  ::signal(SIGCHLD, SIG_DFL);
  // Hold no descriptor of the creator: above all not its stdout/stderr pipes, which the
  // runner reads until EOF.
  if (read_fd != 3) {
    ::dup2(read_fd, 3);
    read_fd = 3;
  }
  ::fcntl(read_fd, F_SETFD, FD_CLOEXEC);  // the `rm` programs we exec need none of ours
  if (::syscall(SYS_close_range, 4U, ~0U, 0U) != 0) {
    rlimit rl{};
    const long max_fd = ::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY
                            ? static_cast<long>(rl.rlim_cur)
                            : 65536;
    for (long fd = 4; fd < max_fd; ++fd) ::close(static_cast<int>(fd));
  }
  const int devnull = ::open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    ::dup2(devnull, 0);
    ::dup2(devnull, 1);
    ::dup2(devnull, 2);
    if (devnull > 3) ::close(devnull);
  }
  if (::chdir("/") != 0) {
  }

  char c = 0;
  ssize_t n;
  do {
    n = ::read(read_fd, &c, 1);
  } while (n < 0 && errno == EINTR);
  if (n == 1 && c == 'D') ::_exit(0);  // dismissed: the probe removed the container

  // The creator is gone (EOF) or released us: remove the container.
  const long start = now_ms();
  bool removed_once = false;
  for (int delay : p.timing.delays_ms) {
    const long wait = start + delay - now_ms();
    if (wait > 0) sleep_ms(wait);
    const Attempt a = p.use_http ? http_attempt(p) : exec_attempt(p);
    if (removed_once) break;  // the confirming attempt after a removal
    if (a == kRemoved) removed_once = true;
  }
  ::_exit(0);
}

}  // namespace

ContainerJanitor::ContainerJanitor(const CleanupRecipe& recipe, JanitorTiming timing) {
  Prepared p;
  p.timing = timing;
  std::vector<std::string> env_copy;
  if (!recipe.unix_socket.empty()) {
    p.use_http = true;
    if (recipe.unix_socket.size() >= sizeof p.addr.sun_path)
      throw std::runtime_error(fmt::format("socket path too long: {}", recipe.unix_socket));
    p.addr.sun_family = AF_UNIX;
    std::memcpy(p.addr.sun_path, recipe.unix_socket.c_str(), recipe.unix_socket.size() + 1);
    p.request = recipe.http_request.data();
    p.request_len = recipe.http_request.size();
  } else {
    if (recipe.argv.empty()) throw std::invalid_argument("cleanup recipe without a socket or a command");
    p.path = recipe.argv[0].c_str();
    for (const auto& a : recipe.argv) p.argv.push_back(const_cast<char*>(a.c_str()));
    p.argv.push_back(nullptr);
    for (char** e = environ; e && *e; ++e) env_copy.emplace_back(*e);
    for (const auto& e : env_copy) p.envp.push_back(const_cast<char*>(e.c_str()));
    p.envp.push_back(nullptr);
  }

  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  int pid_pipe[2];
  if (::pipe2(pid_pipe, O_CLOEXEC) != 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(fmt::format("pipe: {}", std::strerror(errno)));
  }
  const pid_t mid = ::fork();
  if (mid < 0) {
    for (int fd : {fds[0], fds[1], pid_pipe[0], pid_pipe[1]}) ::close(fd);
    throw std::runtime_error(fmt::format("fork: {}", std::strerror(errno)));
  }
  if (mid == 0) {
    // Intermediate child: a new session, then the watcher, then leave at once so the watcher
    // is nobody's child (no zombie in the creator, no process group in common).
    ::close(fds[1]);
    ::close(pid_pipe[0]);
    ::setsid();
    const pid_t w = ::fork();
    if (w == 0) {
      ::close(pid_pipe[1]);
      watch(fds[0], p);
    }
    (void)!::write(pid_pipe[1], &w, sizeof w);
    ::_exit(w < 0 ? 1 : 0);
  }
  ::close(fds[0]);
  ::close(pid_pipe[1]);
  int status = 0;
  while (::waitpid(mid, &status, 0) < 0 && errno == EINTR) {
  }
  pid_t w = -1;
  const ssize_t got = ::read(pid_pipe[0], &w, sizeof w);
  ::close(pid_pipe[0]);
  if (got != sizeof w || w <= 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    ::close(fds[1]);
    throw std::runtime_error("could not start the container janitor (fork failed)");
  }
  write_fd_ = fds[1];
  watcher_pid_ = w;
}

void ContainerJanitor::dismiss() {
  if (write_fd_ < 0) return;
  const char d = 'D';
  (void)!::write(write_fd_, &d, 1);
  ::close(write_fd_);
  write_fd_ = -1;
}

void ContainerJanitor::release() {
  if (write_fd_ < 0) return;
  ::close(write_fd_);
  write_fd_ = -1;
}

ContainerJanitor::~ContainerJanitor() { release(); }

}  // namespace gpuqual::probes
