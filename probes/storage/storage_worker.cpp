#include "probes/storage/storage_worker.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <nlohmann/json.hpp>
#include <thread>

#include "probes/storage/storage_files.hpp"

namespace gpuqual::probes {

namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

// How long a removal on a mount that just hung may take before it is left to finish alone.
constexpr double kRemoveWaitS = 1.0;

json report_to_json(const StorageReport& r) {
  return json{{"canonical_path", r.canonical_path},
              {"mount_point", r.mount_point},
              {"fs_type", r.fs_type},
              {"source", r.source},
              {"mount_options", r.mount_options},
              {"read_only", r.read_only},
              {"free_bytes", r.free_bytes},
              {"total_bytes", r.total_bytes},
              {"io_mode", r.io_mode},
              {"file", r.file},
              {"file_removed", r.file_removed},
              {"bytes", r.bytes},
              {"write_s", r.write_s},
              {"read_s", r.read_s},
              {"fsync_ms", r.fsync_ms},
              {"bad_bytes", r.mismatch.bad_bytes},
              {"first_bad_offset", r.mismatch.first_bad_offset},
              {"swept", r.swept},
              {"problem", static_cast<int>(r.problem)},
              {"detail", r.detail}};
}

StorageReport report_from_json(const json& j) {
  StorageReport r;
  r.canonical_path = j.at("canonical_path");
  r.mount_point = j.at("mount_point");
  r.fs_type = j.at("fs_type");
  r.source = j.at("source");
  r.mount_options = j.at("mount_options");
  r.read_only = j.at("read_only");
  r.free_bytes = j.at("free_bytes");
  r.total_bytes = j.at("total_bytes");
  r.io_mode = j.at("io_mode");
  r.file = j.at("file");
  r.file_removed = j.at("file_removed");
  r.bytes = j.at("bytes");
  r.write_s = j.at("write_s");
  r.read_s = j.at("read_s");
  r.fsync_ms = j.at("fsync_ms").get<std::vector<double>>();
  r.mismatch.bad_bytes = j.at("bad_bytes");
  r.mismatch.first_bad_offset = j.at("first_bad_offset");
  r.swept = j.at("swept").get<std::vector<std::string>>();
  r.problem = static_cast<StorageProblem>(j.at("problem").get<int>());
  r.detail = j.at("detail");
  return r;
}

bool write_line(int fd, const json& j) {
  const std::string s = j.dump() + "\n";
  std::size_t done = 0;
  while (done < s.size()) {
    const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

[[noreturn]] void worker_main(const StoragePathSpec& spec, int fd) {
  // The worker dies with its parent (a killed check must not leave I/O running) and does not
  // take the parent's SIGTERM handler's role: the parent decides when it ends.
  ::signal(SIGTERM, SIG_DFL);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  detach_helper_stdio();
  const StorageReport r = run_storage_io(spec, [fd](const std::string& stage, const std::string& file) {
    write_line(fd, json{{"stage", stage}, {"file", file}});
  });
  _exit(write_line(fd, json{{"report", report_to_json(r)}}) ? 0 : 1);
}

// Forks the worker; returns its pid and the read end of its report pipe in `read_fd`, or -1
// with `out.error` saying why it could not start.
pid_t start_worker(const StoragePathSpec& spec, int& read_fd, StorageOutcome& out) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) {
    out.error = fmt::format("cannot start the I/O worker for {}: pipe: {}", spec.path, std::strerror(errno));
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid < 0) {
    out.error = fmt::format("cannot start the I/O worker for {}: fork: {}", spec.path, std::strerror(errno));
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::close(fds[0]);
    worker_main(spec, fds[1]);
  }
  ::close(fds[1]);
  read_fd = fds[0];
  return pid;
}

// What the worker has said so far: the stage it is in (for a hang's message), and its report.
struct WorkerProgress {
  std::string buffer, stage = "start", file;
  bool got_report = false;
};

// Takes the complete lines in `p.buffer`: a stage line or the final report.
void take_worker_lines(WorkerProgress& p, StorageOutcome& out) {
  for (std::size_t e; (e = p.buffer.find('\n')) != std::string::npos;) {
    const json j = json::parse(p.buffer.substr(0, e), nullptr, false);
    p.buffer.erase(0, e + 1);
    if (j.is_discarded()) continue;
    if (j.contains("report")) {
      out.report = report_from_json(j.at("report"));
      p.got_report = true;
    } else if (j.contains("stage")) {
      p.stage = j.at("stage");
      p.file = j.at("file");
    }
  }
}

// Reads the worker's lines until its report, its EOF, the path's timeout or the stop flag (then
// `out.hung`).
void follow_worker(int fd, const StoragePathSpec& spec, const std::atomic<bool>* stop, WorkerProgress& p,
                   StorageOutcome& out) {
  const auto t0 = Clock::now();
  while (!p.got_report) {
    const double left = spec.timeout_s - std::chrono::duration<double>(Clock::now() - t0).count();
    if (left <= 0 || (stop && stop->load())) {
      out.hung = true;
      return;
    }
    pollfd pfd{fd, POLLIN, 0};
    // Wake at least every 100 ms to look at the stop flag.
    const int r = ::poll(&pfd, 1, static_cast<int>(std::min(left, 0.1) * 1000) + 1);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EOF: it died (or exited) without a report
    p.buffer.append(buf, static_cast<std::size_t>(n));
    take_worker_lines(p, out);
  }
}

// Hung, stopped, or died without a report: kill it, never wait for it without a bound (a
// process blocked in an uninterruptible filesystem call dies only when the call returns), and
// say where it was.
void give_up_on_worker(pid_t pid, const StoragePathSpec& spec, const std::atomic<bool>* stop,
                       const WorkerProgress& p, StorageOutcome& out) {
  ::kill(pid, SIGKILL);
  const auto reap_until = Clock::now() + std::chrono::milliseconds(500);
  int st = 0;
  pid_t w = 0;
  while ((w = ::waitpid(pid, &st, WNOHANG)) == 0 && Clock::now() < reap_until)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  out.hung_stage = p.stage;
  out.report.canonical_path = spec.path;
  out.report.file = p.file;
  if (out.hung) {
    out.error = (stop && stop->load())
                    ? fmt::format("{}: stopped during {} (the run is being stopped)", spec.path, p.stage)
                    : fmt::format(
                          "{}: {} did not finish within {} s: the mount is not answering (a dead NFS "
                          "server, a frozen or hung filesystem?)",
                          spec.path, p.stage, spec.timeout_s);
  } else {
    out.error = fmt::format("{}: the I/O worker died during {} ({})", spec.path, p.stage,
                            w == pid && WIFSIGNALED(st) ? strsignal(WTERMSIG(st)) : "no report");
  }
  if (!p.file.empty()) out.removal = remove_file_bounded(p.file, kRemoveWaitS);
}

}  // namespace

StorageOutcome run_storage_worker(const StoragePathSpec& spec, const std::atomic<bool>* stop) {
  StorageOutcome out;
  int fd = -1;
  const pid_t pid = start_worker(spec, fd, out);
  if (pid < 0) return out;
  WorkerProgress progress;
  follow_worker(fd, spec, stop, progress, out);
  ::close(fd);
  if (progress.got_report) {
    ::waitpid(pid, nullptr, 0);  // it wrote its last line and exits now
    return out;
  }
  give_up_on_worker(pid, spec, stop, progress, out);
  return out;
}

}  // namespace gpuqual::probes
