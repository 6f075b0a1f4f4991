#pragma once
// Running the real gpuqual binary from a benchmark: fork/exec with stdout and stderr to
// /dev/null; wait4 gives the child's own wall time, CPU time and peak RSS (what a pipeline step
// costs; the CPU time tells the work from the wait on a loaded machine).
#include <fcntl.h>
#include <malloc.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <vector>

namespace gpuqual::bench {

// The gpuqual binary to time: $GPUQUAL_BENCH_GPUQUAL (an installed one), else the one the
// benchmark was built with (GPUQUAL_BINARY, set by bench/CMakeLists.txt).
inline std::string gpuqual_binary() {
  const char* v = std::getenv("GPUQUAL_BENCH_GPUQUAL");
  return v && *v ? v : GPUQUAL_BINARY;
}

struct ProcessRun {
  double wall_s = 0;
  double cpu_s = 0;  // user + system
  long max_rss_kib = 0;
  int exit_code = -1;
};

// What the timed runs of one benchmark cost: the peak RSS of any, the mean CPU time.
struct ProcessTally {
  long peak_kib = 0;
  double cpu_s = 0;
  int runs = 0;
  void add(const ProcessRun& r) {
    peak_kib = std::max(peak_kib, r.max_rss_kib);
    cpu_s += r.cpu_s;
    ++runs;
  }
  double peak_mib() const { return static_cast<double>(peak_kib) / 1024.0; }
  double mean_cpu_s() const { return runs > 0 ? cpu_s / runs : 0.0; }
};

inline ProcessRun run_process(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  // A forked child starts with the benchmark's resident pages, and Linux keeps that in the
  // child's ru_maxrss across exec: give the freed heap back first (the in-process runs before
  // this one freed hundreds of MB at 100,000 records), so the peak is the timed process's own
  // unless it stays under the benchmark's live data.
  malloc_trim(0);
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, 1);
    dup2(null, 2);
    execv(args[0], args.data());
    _exit(127);
  }
  ProcessRun r;
  int status = 0;
  rusage ru{};
  if (pid < 0 || wait4(pid, &status, 0, &ru) != pid) return r;
  r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  r.cpu_s = static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
            static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
  r.max_rss_kib = ru.ru_maxrss;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

}  // namespace gpuqual::bench
