// Test-only checks that break the rules a real check may break by accident: crash, abort, exit
// without a result, ignore SIGTERM, leave processes behind, flood stdout/stderr, fill a disk
// quota, return a result the record cannot hold. The runner must survive each and record it.
#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "core/record/metric_summary.hpp"
#include "test_check_support.hpp"

namespace gpuqual::testbin {

namespace {

class SegfaultCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    note_pid(ctx, "check", getpid());
    std::fputs("about to crash\n", stderr);
    std::fflush(stderr);
    signal(SIGSEGV, SIG_DFL);  // a sanitizer's handler would turn the crash into an exit code
    raise(SIGSEGV);
    return result(Status::pass, "");  // never reached
  }
};

class AbortCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    note_pid(ctx, "check", getpid());
    signal(SIGABRT, SIG_DFL);
    std::abort();
  }
};

class ExitCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    std::fputs("leaving early\n", stdout);
    std::fflush(stdout);
    std::_Exit(static_cast<int>(param(ctx, "code", 7)));
  }
};

// Ignores SIGTERM and sleeps: only SIGKILL after the grace period ends it.
class IgnoreTermCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    signal(SIGTERM, SIG_IGN);
    note_pid(ctx, "check", getpid());
    for (;;) sleep_s(1);
  }
};

// Starts two processes and returns pass without waiting for them: one stays in the check's
// process group, the other escapes it (setsid + double fork, like a daemon). Both must be gone
// after the run.
class GrandchildCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const pid_t in_group = fork();
    if (in_group == 0) {
      for (;;) pause();
    }
    note_pid(ctx, "grandchild", in_group);
    int pipefd[2];
    if (pipe(pipefd) != 0) return result(Status::error, "pipe failed");
    const pid_t middle = fork();
    if (middle == 0) {
      setsid();
      const pid_t daemon = fork();
      if (daemon == 0) {
        for (;;) pause();
      }
      [[maybe_unused]] ssize_t n = write(pipefd[1], &daemon, sizeof daemon);
      _exit(0);
    }
    pid_t daemon = -1;
    [[maybe_unused]] ssize_t n = read(pipefd[0], &daemon, sizeof daemon);
    waitpid(middle, nullptr, 0);
    note_pid(ctx, "daemon", daemon);
    return result(Status::pass, "");
  }
};

class HugeOutputCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const auto mib = static_cast<long>(param(ctx, "mib", 64));
    std::string line(1023, 'x');
    line.push_back('\n');
    std::string chunk;
    for (int i = 0; i < 64; ++i) chunk += line;  // 64 KiB
    for (long i = 0; i < mib * 16; ++i) {
      const int fd = i % 2 ? 2 : 1;
      for (std::size_t off = 0; off < chunk.size();) {
        const ssize_t w = write(fd, chunk.data() + off, chunk.size() - off);
        if (w <= 0) return result(Status::error, "write failed");
        off += static_cast<std::size_t>(w);
      }
    }
    std::fputs("the last line of a flood\n", stdout);
    std::fflush(stdout);
    return result(Status::pass, "");
  }
};

// Writes a side file until the disk (or the file-size limit the test set) says no.
class FillDiskCheck : public Check {
 public:
  CheckResult run(const CheckContext& ctx) override {
    const auto max_mib = static_cast<long>(param(ctx, "max_mib", 64));
    std::filesystem::create_directories(ctx.side_dir);
    const std::string path = (std::filesystem::path(ctx.side_dir) / "fill.bin").string();
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return result(Status::error, fmt::format("cannot create {}: {}", path, std::strerror(errno)));
    std::string chunk(1 << 20, 'f');
    for (long i = 0; i < max_mib; ++i) {
      const ssize_t w = write(fd, chunk.data(), chunk.size());
      if (w != static_cast<ssize_t>(chunk.size())) {
        const int err = errno;
        close(fd);
        std::filesystem::remove(path);
        return result(Status::error, fmt::format("side file full after {} MiB: {}", i, std::strerror(err)));
      }
    }
    close(fd);
    return result(Status::pass, "");
  }
};

// A metric on a GPU the node does not have: a record holding it would not read back.
class BadResultCheck : public Check {
 public:
  CheckResult run(const CheckContext&) override {
    CheckResult r = result(Status::pass, "");
    r.metrics.push_back(summarize_metric("test.value", "count", Direction::higher, 7, {1, 2, 3}));
    return r;
  }
};

}  // namespace

GPUQUAL_REGISTER_TEST_CHECK(SegfaultCheck, "test_segfault", "dies of SIGSEGV");
GPUQUAL_REGISTER_TEST_CHECK(AbortCheck, "test_abort", "calls abort()");
GPUQUAL_REGISTER_TEST_CHECK(ExitCheck, "test_exit", "exits without a result (params: code)");
GPUQUAL_REGISTER_TEST_CHECK(IgnoreTermCheck, "test_ignore_term", "ignores SIGTERM and never ends");
GPUQUAL_REGISTER_TEST_CHECK(GrandchildCheck, "test_grandchild",
                            "leaves a grandchild and a setsid daemon running");
GPUQUAL_REGISTER_TEST_CHECK(HugeOutputCheck, "test_huge_output",
                            "writes params.mib MiB to stdout and stderr");
GPUQUAL_REGISTER_TEST_CHECK(FillDiskCheck, "test_fill_disk",
                            "writes a side file until the disk or quota is full");
GPUQUAL_REGISTER_TEST_CHECK(BadResultCheck, "test_bad_result", "returns a metric on a GPU the node lacks");

}  // namespace gpuqual::testbin
