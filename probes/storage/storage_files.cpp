#include "probes/storage/storage_files.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>

namespace gpuqual::probes {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (gethostname(buf, sizeof buf - 1) != 0) return "unknown";
  std::string h(buf);
  // A file name part: nothing that could be a path separator or our own '-' field separator.
  for (char& c : h)
    if (c == '/' || c == '-') c = '_';
  return h;
}

std::string own_prefix() { return ".gpuqual-storage-" + host_name() + "-"; }

// A zombie has stopped writing: it counts as gone (its parent may never reap it, e.g. a killed
// storage worker whose parent gave up waiting for it).
bool process_alive(pid_t pid) {
  if (pid <= 0 || (::kill(pid, 0) != 0 && errno != EPERM)) return false;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close_paren = line.rfind(')');
  return close_paren == std::string::npos || close_paren + 2 >= line.size() || line[close_paren + 2] != 'Z';
}

// Runs `fn` in a forked child; waits up to `wait_s` for its exit status. nullopt: still running.
template <class Fn>
std::optional<int> run_forked_bounded(Fn fn, double wait_s) {
  const pid_t pid = ::fork();
  if (pid < 0) return errno;
  if (pid == 0) {
    detach_helper_stdio();
    _exit(fn());
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(wait_s);
  for (;;) {
    int st = 0;
    const pid_t r = ::waitpid(pid, &st, WNOHANG);
    if (r == pid) return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    if (r < 0) return errno;
    if (std::chrono::steady_clock::now() >= deadline) return std::nullopt;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

void detach_helper_stdio() {
  const int null = ::open("/dev/null", O_RDWR | O_CLOEXEC);
  if (null < 0) return;
  for (int fd : {0, 1, 2}) ::dup2(null, fd);
  ::close(null);
}

std::string storage_test_file(const std::string& dir) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}/{}{}-{}", dir, own_prefix(), ::getpid(), counter++);
}

std::vector<std::string> sweep_stale_storage_files(const std::string& dir) {
  std::vector<std::string> removed;
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) return removed;
  const std::string prefix = own_prefix();
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string rest = name.substr(prefix.size());
    char* end = nullptr;
    const long pid = std::strtol(rest.c_str(), &end, 10);
    if (end == rest.c_str() || *end != '-' || process_alive(static_cast<pid_t>(pid))) continue;
    const std::string path = dir + "/" + name;
    if (::unlink(path.c_str()) == 0) removed.push_back(path);
  }
  ::closedir(d);
  return removed;
}

std::vector<std::string> sweep_stale_storage_files_bounded(const std::string& dir, double wait_s) {
  // The helper reports its removals through a pipe, one path per line.
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0)
    return {fmt::format("not swept: {}: pipe: {}", dir, std::strerror(errno))};
  const int write_fd = fds[1];
  const auto status = run_forked_bounded(
      [&] {
        ::close(fds[0]);
        for (const auto& p : sweep_stale_storage_files(dir)) {
          const std::string line = p + "\n";
          if (::write(write_fd, line.data(), line.size()) < 0) return 1;
        }
        return 0;
      },
      wait_s);
  ::close(fds[1]);
  std::vector<std::string> out;
  std::string text;
  char buf[4096];
  // Non-blocking read of what the helper wrote so far (it may still be blocked in the mount).
  ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  for (std::size_t s = 0, e; (e = text.find('\n', s)) != std::string::npos; s = e + 1)
    out.push_back(text.substr(s, e - s));
  if (!status) out.push_back(fmt::format("not swept: {} did not answer within {} s", dir, wait_s));
  return out;
}

std::string remove_file_bounded(const std::string& file, double wait_s) {
  const auto status =
      run_forked_bounded([&] { return ::unlink(file.c_str()) == 0 || errno == ENOENT ? 0 : errno; }, wait_s);
  if (!status)
    return fmt::format(
        "{} not removed yet: the mount did not answer within {} s (it goes when the mount answers; a later "
        "run sweeps it)",
        file, wait_s);
  if (*status != 0) return fmt::format("{} not removed: {}", file, std::strerror(*status));
  return "";
}

}  // namespace gpuqual::probes
