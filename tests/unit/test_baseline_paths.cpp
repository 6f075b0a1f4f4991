// Where `--baseline auto` looks, and how a class slug becomes a file.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/baseline/baseline.hpp"

using namespace gpuqual;
namespace fs = std::filesystem;

namespace {

class BaselinePaths : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* old = std::getenv("GPUQUAL_BASELINES_DIR")) saved_ = old;
    ::unsetenv("GPUQUAL_BASELINES_DIR");
    dir_ = fs::temp_directory_path() / ("gpuqual-paths-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::ofstream(dir_ / "h200-sxm-141gb.yaml") << "schema: gpuqual.baseline/v1\n";
  }
  void TearDown() override {
    if (saved_) {
      ::setenv("GPUQUAL_BASELINES_DIR", saved_->c_str(), 1);
    } else {
      ::unsetenv("GPUQUAL_BASELINES_DIR");
    }
    fs::remove_all(dir_);
  }
  std::optional<std::string> saved_;
  fs::path dir_;
};

}  // namespace

TEST_F(BaselinePaths, FlagThenEnvironmentThenBuiltInDefault) {
  EXPECT_EQ(baselines_dir("/from/flag"), "/from/flag");
  ::setenv("GPUQUAL_BASELINES_DIR", "/from/env", 1);
  EXPECT_EQ(baselines_dir("/from/flag"), "/from/flag");
  EXPECT_EQ(baselines_dir(""), "/from/env");
  ::setenv("GPUQUAL_BASELINES_DIR", "", 1);  // empty counts as unset (a ConfigMap key left blank)
  // The test binary is not installed, so the fallback is the source tree's baselines/.
  EXPECT_EQ(baselines_dir(""), std::string(GPUQUAL_SOURCE_DIR) + "/baselines");
}

TEST_F(BaselinePaths, AutoFindsTheClassFile) {
  EXPECT_EQ(resolve_baseline("auto", "h200-sxm-141gb", dir_.string()),
            (dir_ / "h200-sxm-141gb.yaml").string());
}

TEST_F(BaselinePaths, AutoWithoutAFileIsEmpty) {
  EXPECT_EQ(resolve_baseline("auto", "b200-sxm-180gb", dir_.string()), "");
  EXPECT_EQ(resolve_baseline("auto", "h200-sxm-141gb", (dir_ / "nowhere").string()), "");
}

TEST_F(BaselinePaths, UnknownOrUnsafeClassNeverNamesAFile) {
  std::ofstream(dir_ / "unknown.yaml") << "x\n";
  EXPECT_EQ(resolve_baseline("auto", "unknown", dir_.string()), "");
  EXPECT_EQ(resolve_baseline("auto", "", dir_.string()), "");
  EXPECT_EQ(resolve_baseline("auto", "../h200-sxm-141gb", (dir_ / "sub").string()), "");
  EXPECT_EQ(resolve_baseline("auto", "a/b", dir_.string()), "");
}

TEST_F(BaselinePaths, AnythingElseIsAPathAsGiven) {
  EXPECT_EQ(resolve_baseline("my/own.yaml", "h200-sxm-141gb", dir_.string()), "my/own.yaml");
}
