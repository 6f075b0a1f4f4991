#pragma once
// Host trees for the `stack` tests: tests/data/stack/ holds a base tree, engine overlays and one
// overlay per breakage (tests/data/stack/README.md); a tree is the base with overlays copied over
// it, in a temporary folder the fixture removes again.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "core/rules/stack_rules.hpp"
#include "device/host/stack_tree_reader.hpp"

namespace gpuqual::testing {

inline std::filesystem::path stack_data(const std::string& rel) {
  return std::filesystem::path(GPUQUAL_TEST_DATA) / "stack" / rel;
}

class StackTree : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() /
            ("gpuqual-stacktree-" + std::to_string(::getpid()) + "-" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
  }
  void TearDown() override { std::filesystem::remove_all(root_); }

  // The base tree with `parts` ("engines/containerd2", "overlays/cdi-stale") copied over it.
  void compose(std::initializer_list<std::string> parts) {
    namespace fs = std::filesystem;
    const auto opts =
        fs::copy_options::recursive | fs::copy_options::overwrite_existing | fs::copy_options::copy_symlinks;
    fs::copy(stack_data("base"), root_, opts);
    for (const auto& p : parts) fs::copy(stack_data(p), root_, opts);
  }
  void write(const std::string& rel, const std::string& text) {
    const auto p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::trunc) << text;
  }
  std::string root() const { return root_.string(); }

  HostStack read() const { return read_host_stack(root()); }
  StackJudgement judge() const { return judge_stack(read(), StackRuleOptions{}); }

  static bool has(const StackJudgement& j, const std::string& code) {
    return std::any_of(j.findings.begin(), j.findings.end(),
                       [&](const Finding& f) { return f.code == code; });
  }
  // A copy: callers pass a judgement that lives only as long as the call.
  static Finding finding(const StackJudgement& j, const std::string& code) {
    for (const auto& f : j.findings) {
      if (f.code == code) return f;
    }
    throw std::runtime_error("no finding " + code);
  }
  static std::string codes(const StackJudgement& j) {
    std::string out;
    for (const auto& f : j.findings) out += f.code + " (" + f.detail + ")\n";
    return out + "status " + std::string(to_string(j.status)) + ": " + j.reason;
  }

  std::filesystem::path root_;
};

}  // namespace gpuqual::testing
