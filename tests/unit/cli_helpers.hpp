#pragma once
// Running the real `gpuqual` binary (GPUQUAL_BINARY) from a test: exit code, stdout, stderr.
// Arguments go through /bin/sh, so paths are quoted with shell_quote().
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace gpuqual::testing {

struct CliRun {
  int code = -1;  // the exit status; -1 when killed by a signal
  std::string out;
  std::string err;
  std::string last_line() const {
    std::string s = out;
    while (!s.empty() && s.back() == '\n') s.pop_back();
    const auto nl = s.rfind('\n');
    return nl == std::string::npos ? s : s.substr(nl + 1);
  }
};

inline std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// `env_assignments` (e.g. "GPUQUAL_BASELINES_DIR=") go before the binary through env(1).
// stderr goes to a file in `scratch_dir` (named by pid: ctest runs test processes side by side)
// and is read back.
inline CliRun run_cli(const std::string& args, const std::filesystem::path& scratch_dir,
                      const std::string& env_assignments = "") {
  const std::filesystem::path err = scratch_dir / ("cli-stderr-" + std::to_string(::getpid()) + ".txt");
  const std::string cmd = "env " + env_assignments + " " + shell_quote(GPUQUAL_BINARY) + " " + args + " 2>" +
                          shell_quote(err.string());
  CliRun r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(err, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  r.err = ss.str();
  return r;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A test fixture with a scratch directory of its own (named by `tag` and the pid), made before
// each test and removed after it: scratch_.
class ScratchDirTest : public ::testing::Test {
 protected:
  explicit ScratchDirTest(const std::string& tag)
      : scratch_(std::filesystem::temp_directory_path() /
                 ("gpuqual-" + tag + "-" + std::to_string(::getpid()))) {}
  void SetUp() override { std::filesystem::create_directories(scratch_); }
  void TearDown() override { std::filesystem::remove_all(scratch_); }
  std::filesystem::path scratch_;
};

}  // namespace gpuqual::testing
