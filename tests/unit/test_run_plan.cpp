// Flags → plan: check selection, GPU selection, output and side-file paths, suite lookup.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/base/input_error.hpp"
#include "record_builders.hpp"
#include "runner/run/run_plan.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;

Suite three() {
  Suite s;
  s.name = "s";
  for (const char* n : {"a", "b", "c"}) {
    SuiteCheck c;
    c.check = n;
    s.checks.push_back(c);
  }
  return s;
}

std::vector<std::string> names(const std::vector<SuiteCheck>& v) {
  std::vector<std::string> out;
  for (const auto& c : v) out.push_back(c.check);
  return out;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(SelectChecks, OnlyAndSkipKeepSuiteOrder) {
  EXPECT_EQ(names(select_checks(three(), {}, {})), (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(names(select_checks(three(), {"c", "a"}, {})), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(names(select_checks(three(), {}, {"b"})), (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(names(select_checks(three(), {"a", "b"}, {"b"})), (std::vector<std::string>{"a"}));
}

TEST(SelectChecks, RejectsUnknownDuplicateAndEmpty) {
  EXPECT_EQ(error_of([] { select_checks(three(), {"x"}, {}); }),
            "--only: \"x\" is not a check of suite s (its checks: a, b, c)");
  EXPECT_EQ(error_of([] { select_checks(three(), {}, {"x"}); }),
            "--skip: \"x\" is not a check of suite s (its checks: a, b, c)");
  EXPECT_EQ(error_of([] { select_checks(three(), {"a", "a"}, {}); }), "--only: \"a\" is given twice");
  EXPECT_EQ(error_of([] { select_checks(three(), {"a"}, {"a"}); }),
            "--only/--skip: no check of suite s is left to run");
}

TEST(SelectGpus, AllByDefaultAndValidatedAgainstTheNode) {
  const std::vector<GpuInfo> gpus{testing::make_gpu(0), testing::make_gpu(1), testing::make_gpu(2),
                                  testing::make_gpu(3)};
  EXPECT_EQ(select_gpus("", gpus), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(select_gpus("all", gpus), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(select_gpus("2,0", gpus), (std::vector<int>{0, 2}));
  EXPECT_EQ(error_of([&] { select_gpus("4", gpus); }), "--gpus: this node has no GPU 4 (its GPUs: 0,1,2,3)");
  EXPECT_EQ(error_of([&] { select_gpus("1,1", gpus); }), "--gpus: GPU 1 is given twice");
  for (const char* bad : {"x", "", "0,", ",0", "0,,1", "-1", "1.5", "0 1", "2000"}) {
    if (std::string(bad).empty()) continue;  // "" means all
    EXPECT_THAT(error_of([&] { select_gpus(bad, gpus); }), HasSubstr("is not a GPU index")) << bad;
  }
}

TEST(SelectGpus, OnANodeWithoutUsableGpusTheSelectionPassesThrough) {
  EXPECT_EQ(select_gpus("", {}), std::vector<int>{});
  EXPECT_EQ(select_gpus("0,2", {}), (std::vector<int>{0, 2}));
}

TEST(OutputPaths, DefaultNameIsHostAndTimestampWithoutOverwriting) {
  const auto cwd = std::filesystem::current_path();
  const std::string dir = ::testing::TempDir() + "/output-paths";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir + "/results");
  std::filesystem::current_path(dir);
  EXPECT_EQ(default_output_path("node-a.example", "20260130T142501Z"),
            "results/node-a.example-20260130T142501Z.json");
  EXPECT_EQ(default_output_path("we/ird host", "20260130T142501Z"),
            "results/we_ird_host-20260130T142501Z.json");
  EXPECT_EQ(default_output_path("", "20260130T142501Z"), "results/unknown-host-20260130T142501Z.json");
  std::ofstream("results/node-a-20260130T142501Z.json") << "{}";
  EXPECT_EQ(default_output_path("node-a", "20260130T142501Z"), "results/node-a-20260130T142501Z-2.json");
  std::filesystem::current_path(cwd);
}

TEST(OutputPaths, SideDirectorySitsNextToTheRecord) {
  EXPECT_EQ(side_dir_for("results/x.json"), "results/x.files");
  EXPECT_EQ(side_dir_for("/tmp/rec"), "/tmp/rec.files");
}

TEST(SuiteLookup, NamesPathsAndTheListOfWhatExists) {
  const std::string dir = ::testing::TempDir() + "/suite-lookup";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/b.yaml") << "x";
  std::ofstream(dir + "/a.yml") << "x";
  EXPECT_EQ(resolve_suite("b", dir), dir + "/b.yaml");
  EXPECT_EQ(resolve_suite("a", dir), dir + "/a.yml");
  EXPECT_EQ(resolve_suite("./x.yaml", dir), "./x.yaml");
  EXPECT_EQ(resolve_suite("x.yaml", dir), "x.yaml");
  EXPECT_EQ(error_of([&] { resolve_suite("c", dir); }),
            "--suite: no suite \"c\" in " + dir + " (suites there: a, b)");
  EXPECT_EQ(suites_dir("/flag/dir"), "/flag/dir");
}

}  // namespace
}  // namespace gpuqual
