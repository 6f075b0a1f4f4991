#pragma once
// GoogleTest writes its XML report only when the program exits: a GPU test that hangs (killed at
// the device script's deadline) or crashes the process (a driver fault, SIGSEGV) leaves no
// results at all. This listener appends one line per test start, test end and suite end to the
// file named by GPUQUAL_GTEST_PROGRESS_FILE, flushed as it happens, so tests/gpu/device_summary.py
// can report what ran before a crash or hang and which test never ended. Lines, tab-separated:
//   start  <Suite.Name>
//   end    <Suite.Name>  <passed|failed|skipped>  <milliseconds>  <first message, one line>
//   suite  <Suite>  <passed>  <failed>  <skipped>  <milliseconds>
//   done
// Header-only: the GPU test program registers it (test_gpu_progress.cpp) and the unit tests
// drive it on the CPU.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace gpuqual::gpu_test {

inline constexpr const char* kProgressFileEnv = "GPUQUAL_GTEST_PROGRESS_FILE";

// One field of a line: tabs and line breaks become spaces, at most 300 characters.
inline std::string progress_field(std::string_view text) {
  std::string out(text.substr(0, 300));
  for (char& c : out) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return out;
}

inline std::string progress_status(const ::testing::TestResult& r) {
  if (r.Skipped()) return "skipped";
  return r.Failed() ? "failed" : "passed";
}

// The first failure's message or the skip's reason (its first line), "" when there is none.
inline std::string progress_message(const ::testing::TestResult& r) {
  for (int i = 0; i < r.total_part_count(); ++i) {
    const auto& part = r.GetTestPartResult(i);
    if (part.failed() || part.skipped()) {
      const std::string_view m = part.message();
      return progress_field(m.substr(0, m.find('\n')));
    }
  }
  return "";
}

class ProgressListener : public ::testing::EmptyTestEventListener {
 public:
  explicit ProgressListener(std::FILE* out) : out_(out) {}
  ~ProgressListener() override {
    if (out_) std::fclose(out_);
  }
  ProgressListener(const ProgressListener&) = delete;
  ProgressListener& operator=(const ProgressListener&) = delete;

  void OnTestStart(const ::testing::TestInfo& t) override { line("start\t" + name(t)); }
  void OnTestEnd(const ::testing::TestInfo& t) override {
    const auto& r = *t.result();
    line("end\t" + name(t) + "\t" + progress_status(r) + "\t" + std::to_string(r.elapsed_time()) + "\t" +
         progress_message(r));
  }
  void OnTestSuiteEnd(const ::testing::TestSuite& s) override {
    line("suite\t" + progress_field(s.name()) + "\t" + std::to_string(s.successful_test_count()) + "\t" +
         std::to_string(s.failed_test_count()) + "\t" + std::to_string(s.skipped_test_count()) + "\t" +
         std::to_string(s.elapsed_time()));
  }
  void OnTestProgramEnd(const ::testing::UnitTest&) override { line("done"); }

 private:
  static std::string name(const ::testing::TestInfo& t) {
    return progress_field(std::string(t.test_suite_name()) + "." + t.name());
  }
  // Written and flushed at once: the next instant may be a crash.
  void line(const std::string& text) {
    if (!out_) return;
    std::fputs((text + "\n").c_str(), out_);
    std::fflush(out_);
  }
  std::FILE* out_;
};

// Appends a ProgressListener writing to $GPUQUAL_GTEST_PROGRESS_FILE when it is set (the file is
// truncated). Returns whether one was added.
inline bool add_progress_listener_from_env() {
  const char* path = std::getenv(kProgressFileEnv);
  if (!path || !*path) return false;
  std::FILE* f = std::fopen(path, "w");
  if (!f) return false;
  ::testing::UnitTest::GetInstance()->listeners().Append(new ProgressListener(f));
  return true;
}

}  // namespace gpuqual::gpu_test
