#pragma once
// Running gpuqual (or gpuqual-testbin) as a real process from a test: argv, environment
// additions, an optional file-size limit, stdout/stderr captured to files, exit status and the
// child's own resource usage (peak RSS) from wait4.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace gpuqual::testing {

struct ProcOptions {
  std::vector<std::string> env;           // extra NAME=VALUE entries
  std::optional<rlim_t> file_size_limit;  // RLIMIT_FSIZE in bytes
  std::string cwd;                        // working directory; empty: the test's
};

struct Proc {
  pid_t pid = -1;
  std::string out_path, err_path;
};

struct ProcResult {
  int exit_code = -1;  // -1 when killed by a signal
  int signal = 0;
  std::string out, err;
  double seconds = 0;
  long max_rss_kib = 0;  // the process's own peak resident memory
};

inline std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string temp_dir(const std::string& tag) {
  std::string templ = (std::filesystem::temp_directory_path() / ("gpuqual-test-" + tag + "-XXXXXX")).string();
  if (!mkdtemp(templ.data())) std::abort();
  return templ;
}

inline Proc start_process(const std::vector<std::string>& argv, const std::string& io_dir,
                          const ProcOptions& opts = {}) {
  static int counter = 0;
  Proc p;
  p.out_path = io_dir + "/stdout-" + std::to_string(++counter) + ".txt";
  p.err_path = io_dir + "/stderr-" + std::to_string(counter) + ".txt";
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  p.pid = fork();
  if (p.pid == 0) {
    setpgid(0, 0);  // its own group, as a shell would start it
    const int out = open(p.out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int err = open(p.err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int in = open("/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(out, 1);
    dup2(err, 2);
    for (const auto& e : opts.env) putenv(const_cast<char*>(e.c_str()));
    if (opts.file_size_limit) {
      rlimit rl{*opts.file_size_limit, *opts.file_size_limit};
      setrlimit(RLIMIT_FSIZE, &rl);
    }
    if (!opts.cwd.empty() && chdir(opts.cwd.c_str()) != 0) _exit(126);
    execv(args[0], args.data());
    _exit(127);
  }
  return p;
}

inline ProcResult wait_process(const Proc& p, double timeout_s = 120) {
  ProcResult r;
  const auto t0 = std::chrono::steady_clock::now();
  int status = 0;
  rusage ru{};
  while (true) {
    const pid_t w = wait4(p.pid, &status, WNOHANG, &ru);
    if (w == p.pid) break;
    if (std::chrono::steady_clock::now() - t0 > std::chrono::duration<double>(timeout_s)) {
      kill(-p.pid, SIGKILL);
      wait4(p.pid, &status, 0, &ru);
      r.err = "test helper: killed after the timeout\n";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  r.max_rss_kib = ru.ru_maxrss;
  r.out = read_all(p.out_path);
  r.err += read_all(p.err_path);
  return r;
}

inline ProcResult run_process(const std::vector<std::string>& argv, const std::string& io_dir,
                              const ProcOptions& opts = {}, double timeout_s = 120) {
  return wait_process(start_process(argv, io_dir, opts), timeout_s);
}

inline std::string last_line(const std::string& text) {
  std::string t = text;
  while (!t.empty() && t.back() == '\n') t.pop_back();
  const auto nl = t.rfind('\n');
  return nl == std::string::npos ? t : t.substr(nl + 1);
}

// Every run of blanks and line breaks as one blank: a phrase the table wrapped to the width
// (docs/output-formats.md, "Width") is still found.
inline std::string blanks_as_one(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool blank = c == ' ' || c == '\n';
    if (!(blank && !out.empty() && out.back() == ' ')) out += blank ? ' ' : c;
  }
  return out;
}

// True while `pid` exists (a zombie counts: it has not been reaped).
inline bool process_exists(pid_t pid) { return kill(pid, 0) == 0 || errno != ESRCH; }

// Pids listed by the test checks in a pid file ("label pid" lines).
inline std::vector<std::pair<std::string, pid_t>> read_pids(const std::string& path) {
  std::vector<std::pair<std::string, pid_t>> out;
  std::ifstream in(path);
  std::string label;
  pid_t pid;
  while (in >> label >> pid) out.emplace_back(label, pid);
  return out;
}

}  // namespace gpuqual::testing
