// The GPU tests' progress listener (tests/gpu/gtest_progress.hpp): a line per test start and end
// reaches the file at once, so a crash or hang still leaves what ran. Driven here with this
// very test's TestInfo.
#include "tests/gpu/gtest_progress.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace gpuqual::gpu_test {
namespace {

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(GtestProgress, EachStartAndEndIsOnDiskBeforeTheNextTestRuns) {
  const std::string path = ::testing::TempDir() + "gtest-progress-test.tsv";
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  ProgressListener listener(f);
  const ::testing::TestInfo& self = *::testing::UnitTest::GetInstance()->current_test_info();
  listener.OnTestStart(self);
  // Read back while the listener still holds the file open: nothing waits for exit.
  EXPECT_EQ(read_all(path), "start\tGtestProgress.EachStartAndEndIsOnDiskBeforeTheNextTestRuns\n");
  listener.OnTestEnd(self);
  EXPECT_EQ(read_all(path).find("end\tGtestProgress.EachStartAndEndIsOnDiskBeforeTheNextTestRuns\tpassed\t"),
            std::string("start\tGtestProgress.EachStartAndEndIsOnDiskBeforeTheNextTestRuns\n").size());
  std::remove(path.c_str());
}

TEST(GtestProgress, FieldsStayOnOneLine) {
  EXPECT_EQ(progress_field("a\tb\nc\rd"), "a b c d");
  EXPECT_EQ(progress_field(std::string(500, 'x')).size(), 300u);
}

TEST(GtestProgress, NothingIsAddedWithoutTheVariable) {
  ASSERT_EQ(unsetenv(kProgressFileEnv), 0);
  EXPECT_FALSE(add_progress_listener_from_env());
}

}  // namespace
}  // namespace gpuqual::gpu_test
