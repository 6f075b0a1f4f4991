#pragma once
// A temp directory per test, suites written into it, and gpuqual-testbin (gpuqual + the
// test-only checks of tests/testbin) run in it as a real process.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/record/record.hpp"
#include "core/record/record_io.hpp"
#include "process_helpers.hpp"

namespace gpuqual::testing {

class RunFixture : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = temp_dir("run"); }
  void TearDown() override {
    if (!HasFailure()) std::filesystem::remove_all(dir_);  // kept for post-mortem otherwise
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }

  std::string write_file(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
    return path(name);
  }

  // A suite named `name` whose checks: list is `checks_yaml` (indented list items).
  std::string write_suite(const std::string& name, const std::string& checks_yaml,
                          const std::string& extra = "") const {
    return write_file(name + ".yaml", "name: " + name + "\n" + extra + "checks:\n" + checks_yaml);
  }

  static ProcOptions env(const std::string& entry) {
    ProcOptions o;
    o.env.push_back(entry);
    return o;
  }

  std::string pid_file() const { return path("pids.txt"); }

  ProcResult gpuqual(const std::vector<std::string>& args, ProcOptions opts = {},
                     const std::string& binary = GPUQUAL_TESTBIN) {
    std::vector<std::string> argv{binary};
    argv.insert(argv.end(), args.begin(), args.end());
    if (opts.cwd.empty()) opts.cwd = dir_;
    return run_process(argv, dir_, opts);
  }

  Proc start_gpuqual(const std::vector<std::string>& args, ProcOptions opts = {}) {
    std::vector<std::string> argv{GPUQUAL_TESTBIN};
    argv.insert(argv.end(), args.begin(), args.end());
    if (opts.cwd.empty()) opts.cwd = dir_;
    return start_process(argv, dir_, opts);
  }

  // Reads the record with the strict reader: the test fails if the file is not a valid record.
  RunRecord record(const std::string& name = "r.json") const { return read_record(path(name)); }

  // The record's checks from the suite: every record also ends with the run-level "xid" result.
  static std::vector<CheckResult> suite_checks(const RunRecord& r) {
    EXPECT_FALSE(r.checks.empty());
    if (r.checks.empty()) return {};
    EXPECT_EQ(r.checks.back().name, "xid");
    return {r.checks.begin(), r.checks.end() - 1};
  }

  static const CheckResult& check(const RunRecord& r, const std::string& name) {
    for (const auto& c : r.checks) {
      if (c.name == name) return c;
    }
    throw std::runtime_error("no check " + name + " in the record");
  }

  // Waits until the pid file names a process with `label` (a test check reached that point).
  bool wait_for_pid(const std::string& label, double timeout_s = 20) const {
    const auto t0 = std::chrono::steady_clock::now();
    while (std::chrono::steady_clock::now() - t0 < std::chrono::duration<double>(timeout_s)) {
      for (const auto& [l, pid] : read_pids(pid_file())) {
        if (l == label) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  void expect_all_pids_gone() const {
    const auto pids = read_pids(pid_file());
    ASSERT_FALSE(pids.empty()) << "the test checks wrote no pid";
    for (const auto& [label, pid] : pids)
      EXPECT_FALSE(process_exists(pid)) << label << " " << pid << " is still there";
  }

  std::string dir_;
};

}  // namespace gpuqual::testing
