#include "runner/run/stop_signal.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>
#include <string>

namespace gpuqual {

namespace {

StopState g_state;
int g_wake_write = -1;

extern "C" void on_stop_signal(int sig) {
  const int saved = errno;
  g_state.signal.store(sig);
  g_state.count.fetch_add(1);
  if (g_wake_write >= 0) {
    const char byte = 's';
    [[maybe_unused]] ssize_t n = write(g_wake_write, &byte, 1);  // full pipe: already awake
  }
  errno = saved;
}

}  // namespace

StopState& install_stop_handlers() {
  static const bool installed = [] {
    int fds[2];
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("pipe2 failed for the stop signal");
    g_state.wake_fd = fds[0];
    g_wake_write = fds[1];
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
    signal(SIGPIPE, SIG_IGN);
    signal(SIGXFSZ, SIG_IGN);
    return true;
  }();
  (void)installed;
  return g_state;
}

void drain_wake_fd(int fd) {
  char buf[64];
  while (read(fd, buf, sizeof buf) > 0) {
  }
}

}  // namespace gpuqual
