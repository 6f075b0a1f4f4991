// `gpuqual matrix build|check|rollback` as a user runs them, on the fixture fleet in
// tests/data/matrix (make_fixtures.py says what each record is): the matrix in every format
// against golden files, the same bytes on 1 and 2 threads, check's exit code for each state, a
// broken rule and a bad rule table, and a rollback target that loads back as a target.
// After an intended format change: GPUQUAL_UPDATE_GOLDEN=1 build/tests/unit/gpuqual_unit_tests
// --gtest_filter='MatrixCli.Golden*', then review the diff.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "core/verdict/target.hpp"

namespace gpuqual {
namespace {

using testing::read_text;
using testing::run_cli;
using testing::shell_quote;

const std::string kData = std::string(GPUQUAL_TEST_DATA) + "/matrix";
// The rule tables are the shipped ones (the source tree's baselines/).
const std::string kRules = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";

class MatrixCli : public testing::ScratchDirTest {
 protected:
  MatrixCli() : ScratchDirTest("matrix-cli") {}
  std::string path(const std::string& name) const { return (scratch_ / name).string(); }
  testing::CliRun gpuqual(const std::string& args) const {
    return run_cli(args, scratch_, "GPUQUAL_BASELINES_DIR=");
  }
  testing::CliRun build(const std::string& extra = "") const {
    return gpuqual("matrix build " + shell_quote(kData + "/records") + " --baselines-dir " +
                   shell_quote(kData + "/baselines") + " -o " + shell_quote(path("matrix.yaml")) + " " +
                   extra);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(scratch_ / name) << text;
  }
  testing::CliRun check(const std::string& target_yaml, const std::string& extra = "") const {
    write("target.yaml", target_yaml);
    return gpuqual("matrix check --target " + shell_quote(path("target.yaml")) + " --matrix " +
                   shell_quote(path("matrix.yaml")) + " --baselines-dir " + shell_quote(kRules) + " " +
                   extra);
  }
};

TEST_F(MatrixCli, GoldenMatrixInEveryFormat) {
  const auto r = build("--markdown " + shell_quote(path("matrix.md")) + " --html " +
                       shell_quote(path("matrix.html")) + " --jobs 2");
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  ASSERT_EQ(gpuqual("matrix build " + shell_quote(kData + "/records") + " --baselines-dir " +
                    shell_quote(kData + "/baselines") + " -o " + shell_quote(path("matrix.json")))
                .code,
            0);
  const bool update = std::getenv("GPUQUAL_UPDATE_GOLDEN") != nullptr;
  for (const char* ext : {"yaml", "json", "md", "html"}) {
    const std::string golden = kData + "/golden/matrix." + ext;
    const std::string got = read_text(path(std::string("matrix.") + ext));
    if (update) {
      std::filesystem::create_directories(kData + "/golden");
      std::ofstream(golden, std::ios::binary) << got;
      continue;
    }
    ASSERT_TRUE(std::filesystem::exists(golden)) << golden << " is missing; run with GPUQUAL_UPDATE_GOLDEN=1";
    EXPECT_EQ(got, read_text(golden))
        << golden << " differs (if intended: GPUQUAL_UPDATE_GOLDEN=1, then review the diff)";
  }
  EXPECT_NE(
      r.out.find("6 rows from 12 records (3 known-good, 1 known-bad, 1 mixed, 1 unqualified; 0 unreadable)"),
      std::string::npos)
      << r.out;
}

TEST_F(MatrixCli, SameBytesOnOneAndTwoThreads) {
  ASSERT_EQ(build("--jobs 1").code, 0);
  const std::string one = read_text(path("matrix.yaml"));
  ASSERT_EQ(build("--jobs 2").code, 0);
  EXPECT_EQ(read_text(path("matrix.yaml")), one);
}

TEST_F(MatrixCli, CheckExitCodeForEachState) {
  ASSERT_EQ(build().code, 0);
  // R570 with CUDA 12.8: known-good on both classes; on 2025-12-01 R570 was not yet end of life.
  const char* r570 =
      "schema: gpuqual.target/v1\ncomponents:\n  driver_version: 570.133.20\n  cuda_driver_version: "
      "\"12.8\"\n";
  auto good = check(r570, "--as-of 2025-12-01");
  EXPECT_EQ(good.code, 0) << good.out << good.err;
  EXPECT_NE(good.out.find("h200-sxm-141gb: known-good: passed on 2 nodes"), std::string::npos) << good.out;
  EXPECT_NE(good.out.find("h100-sxm-80gb: known-good"), std::string::npos) << good.out;
  // A year later the same stack breaks the end-of-life rule: exit 1, and the line says why.
  auto eol = check(r570, "--as-of 2026-12-01");
  EXPECT_EQ(eol.code, 1) << eol.out;
  EXPECT_NE(eol.out.find("rule broken: R570 (production) is end of life on 2026-12-01"), std::string::npos)
      << eol.out;
  // R575: node-a failed on it after passing on R570: known-bad on the H200s.
  auto bad = check("schema: gpuqual.target/v1\ncomponents:\n  driver_version: 575.57.08\n",
                   "--as-of 2025-12-01 --class h200-sxm-141gb");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_NE(bad.out.find("h200-sxm-141gb: known-bad: failed on 1 node that passed before"), std::string::npos)
      << bad.out;
  // R580 on kernel 6.1: mixed (node-d failed, never seen before) -> not qualified, exit 2.
  // (the target docs/matrix.md checks)
  auto mixed =
      check(read_text(kData + "/targets/r580-kernel-6.1.yaml"), "--as-of 2026-12-01 --class h200-sxm-141gb");
  EXPECT_EQ(mixed.code, 2) << mixed.out;
  EXPECT_NE(mixed.out.find("h200-sxm-141gb: mixed:"), std::string::npos) << mixed.out;
  // R595: never run anywhere.
  auto never =
      check("schema: gpuqual.target/v1\ncomponents:\n  driver_version: 595.91.07\n", "--as-of 2026-12-01");
  EXPECT_EQ(never.code, 2) << never.out;
  EXPECT_NE(never.out.find("h100-sxm-80gb: never-qualified: no row of"), std::string::npos) << never.out;
}

TEST_F(MatrixCli, ABadRuleTableIsExit3WithFileAndLine) {
  ASSERT_EQ(build().code, 0);
  const std::filesystem::path rules = scratch_ / "rules";
  std::filesystem::create_directories(rules);
  for (const char* f : {"cuda-compat.yaml", "gpu-operator.yaml"})
    std::filesystem::copy_file(kRules + "/" + f, rules / f);
  std::string branches = read_text(kRules + "/driver-branches.yaml");
  branches.replace(branches.find("kind: long-term"), 15, "kind: forever");
  std::ofstream(rules / "driver-branches.yaml") << branches;
  write("target.yaml", "schema: gpuqual.target/v1\ncomponents:\n  driver_version: 570.133.20\n");
  const auto r =
      gpuqual("matrix check --target " + shell_quote(path("target.yaml")) + " --matrix " +
              shell_quote(path("matrix.yaml")) + " --baselines-dir " + shell_quote(rules.string()));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_NE(r.err.find("driver-branches.yaml: line "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("kind: unknown kind \"forever\""), std::string::npos) << r.err;
}

TEST_F(MatrixCli, RollbackIsTheNewestKnownGoodRowAndLoadsBackAsATarget) {
  ASSERT_EQ(build().code, 0);
  const auto r =
      gpuqual("matrix rollback --class h200-sxm-141gb --matrix " + shell_quote(path("matrix.yaml")));
  ASSERT_EQ(r.code, 0) << r.err;
  write("rollback.yaml", r.out);
  const Target t = load_target(path("rollback.yaml"));
  const auto rules = t.rules_for("h200-sxm-141gb");
  ASSERT_TRUE(rules.count("driver_version"));
  EXPECT_EQ(rules.at("driver_version").value, "570.133.20");  // R570 (11-25) is newer than R550 (11-20)
  EXPECT_EQ(rules.at("driver_version").match, TargetMatch::exact);
  EXPECT_EQ(rules.at("kernel").value, "6.1.0-28-amd64");
  // The fixture's records state no Kubernetes or GPU Operator: pinned absent, not left open.
  EXPECT_EQ(rules.at("kubernetes").match, TargetMatch::absent);
  EXPECT_NE(r.out.find("gpu_operator: {absent: true}"), std::string::npos) << r.out;
  // The printed target is what `matrix check` accepts, and it is known-good there.
  const auto again = gpuqual("matrix check --target " + shell_quote(path("rollback.yaml")) + " --matrix " +
                             shell_quote(path("matrix.yaml")) + " --baselines-dir " + shell_quote(kRules) +
                             " --as-of 2025-12-01");
  EXPECT_EQ(again.code, 0) << again.out;
  // Its rules are under classes.h200-sxm-141gb only: the H100s are said to be not targeted.
  EXPECT_NE(again.out.find("h100-sxm-80gb: not checked: the target names no component for this class"),
            std::string::npos)
      << again.out;
  // A class without a known-good row has no rollback path.
  const auto none =
      gpuqual("matrix rollback --class b200-sxm-180gb --matrix " + shell_quote(path("matrix.yaml")));
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("no known-good row"), std::string::npos) << none.err;
}

// Input errors are exit 3 with a one-line error: a date that does not exist, no records at all.
TEST_F(MatrixCli, ABadDateOrNoRecordsIsExit3) {
  ASSERT_EQ(build().code, 0);
  const char* t = "schema: gpuqual.target/v1\ncomponents:\n  driver_version: 570.133.20\n";
  for (const char* date : {"2025-13-01", "tomorrow", "2026-02-30"}) {
    const auto r = check(t, std::string("--as-of ") + date);
    EXPECT_EQ(r.code, 3) << date << r.out << r.err;
    EXPECT_NE(r.err.find(std::string("\"") + date + "\" is not a date YYYY-MM-DD"), std::string::npos)
        << r.err;
  }
  std::filesystem::create_directories(scratch_ / "no-records");
  const auto empty =
      gpuqual("matrix build " + shell_quote(path("no-records")) + " -o " + shell_quote(path("m.yaml")));
  EXPECT_EQ(empty.code, 3) << empty.out << empty.err;
  EXPECT_NE(empty.err.find("no *.json run records"), std::string::npos) << empty.err;
  EXPECT_FALSE(std::filesystem::exists(path("m.yaml")));
}

TEST_F(MatrixCli, TheHtmlReportCarriesTheMatrixSection) {
  ASSERT_EQ(build().code, 0);
  const auto r =
      gpuqual("report " + shell_quote(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json") +
              " --baselines-dir " + shell_quote(std::string(GPUQUAL_TEST_DATA) + "/baselines") + " --html " +
              shell_quote(path("report.html")) + " --matrix " + shell_quote(path("matrix.yaml")));
  ASSERT_EQ(r.code, 0) << r.out << r.err;
  const std::string page = read_text(path("report.html"));
  EXPECT_NE(page.find("<h2 id=\"matrix\">Compatibility matrix</h2>"), std::string::npos);
  EXPECT_NE(page.find("<tr data-state=\"known-bad\"><td>h200-sxm-141gb</td>"), std::string::npos);
}

}  // namespace
}  // namespace gpuqual
