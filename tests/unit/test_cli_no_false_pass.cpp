// No false pass (docs/compare.md) through the real binary: every fixture that used to print PASS now exits
// non-zero with its finding, through compare, diff, gate and run as applies (tests/data/README.md lists the
// fixtures and what each must say).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_helpers.hpp"

namespace {

const std::string kData = GPUQUAL_TEST_DATA;

using gpuqual::testing::CliRun;
using gpuqual::testing::run_cli;
using gpuqual::testing::shell_quote;

class CliNoFalsePass : public gpuqual::testing::ScratchDirTest {
 protected:
  CliNoFalsePass() : ScratchDirTest("cli-no-false-pass") {}
  CliRun gpuqual(const std::string& args) { return run_cli(args, scratch_, "GPUQUAL_BASELINES_DIR="); }
  static std::string record(const std::string& name) {
    return shell_quote(kData + "/records/" + name + ".json");
  }
  static std::string baselines() { return " --baselines-dir " + shell_quote(kData + "/baselines"); }
  static std::string target() { return " --target " + shell_quote(kData + "/targets/driver-570.yaml"); }
};

#define EXPECT_CONTAINS(haystack, needle) EXPECT_NE((haystack).find(needle), std::string::npos) << (haystack)

}  // namespace

TEST_F(CliNoFalsePass, AGpuFellOffTheBusFailsCompareAndGate) {
  CliRun r = gpuqual("compare " + record("synthetic-gpu-missing") + baselines());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.last_line(), "gpu.missing");
  EXPECT_CONTAINS(r.out, "1 of 2 expected GPUs missing: the record has 1");
  r = gpuqual("gate " + record("synthetic-gpu-missing") + " " + record("synthetic-healthy") + baselines());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.last_line(), "FAIL");
}

TEST_F(CliNoFalsePass, ExpectGpusOverridesTheBaseline) {
  CliRun r = gpuqual("compare " + record("synthetic-healthy") + baselines() + " --expect-gpus 8");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "6 of 8 expected GPUs missing: the record has 2 (expected by --expect-gpus)");
  r = gpuqual("gate " + record("synthetic-healthy") + baselines() + " --expect-gpus 8");
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  r = gpuqual("compare " + record("synthetic-healthy") + baselines() + " --expect-gpus 0");
  EXPECT_EQ(r.code, 3) << r.out << r.err;
}

TEST_F(CliNoFalsePass, HealthSkippedIsInconclusiveAndLostAfterTheUpgradeFailsTheDiff) {
  CliRun r = gpuqual("compare " + record("synthetic-health-skipped") + baselines());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_CONTAINS(r.last_line(), "health skipped: NVML unavailable");
  r = gpuqual("diff " + record("synthetic-healthy") + " " + record("synthetic-health-skipped"));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.last_line(), "health: passed before, skipped after the upgrade: NVML unavailable");
  r = gpuqual("gate " + record("synthetic-health-skipped") + baselines());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
}

TEST_F(CliNoFalsePass, AStoredMedianTheSamplesDoNotHaveIsExit3NamingThePath) {
  const std::string bad = shell_quote(kData + "/bad/record-summary-mismatch.json");
  for (const std::string& cmd : {"compare " + bad + baselines(), "gate " + bad + baselines(),
                                 "diff " + record("synthetic-healthy") + " " + bad}) {
    const CliRun r = gpuqual(cmd);
    EXPECT_EQ(r.code, 3) << cmd << "\n" << r.out << r.err;
    EXPECT_CONTAINS(r.err, "$.checks[0].metrics[0].median: median 771.5 disagrees with the samples");
  }
}

TEST_F(CliNoFalsePass, AMixedDriverPoolIsNotAPassAndATargetFailsTheNodeOffIt) {
  CliRun r =
      gpuqual("gate " + record("synthetic-healthy") + " " + record("synthetic-old-driver") + baselines());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "driver versions mixed in the pool");
  r = gpuqual("gate " + record("synthetic-healthy") + " " + record("synthetic-old-driver") + baselines() +
              target());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "driver_version: 550.90.07 (node-d), 570.133.20 (node-a)");  // the pool's spread
  EXPECT_CONTAINS(r.out, "node-d");
}

TEST_F(CliNoFalsePass, TargetOnCompareAndDiff) {
  CliRun r = gpuqual("compare " + record("synthetic-healthy") + baselines() + target());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  r = gpuqual("compare " + record("synthetic-old-driver") + baselines() + target());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "driver_version: expected exact 570.133.20, found 550.90.07");
  EXPECT_CONTAINS(r.out, "cuda_driver_version: expected minimum 12.8, found 12.4");
  EXPECT_CONTAINS(r.last_line(), "stack.off_target");
  r = gpuqual("diff " + record("synthetic-healthy") + " " + record("synthetic-old-driver") + target());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_CONTAINS(r.out, "stack.off_target");
}

TEST_F(CliNoFalsePass, ABadTargetFileIsExit3NamingFileAndProblem) {
  const std::string bad = (scratch_ / "t.yaml").string();
  { std::ofstream(bad) << "schema: gpuqual.target/v1\ncomponents:\n  driver: 570.133.20\n"; }
  const CliRun r =
      gpuqual("compare " + record("synthetic-healthy") + baselines() + " --target " + shell_quote(bad));
  EXPECT_EQ(r.code, 3) << r.out << r.err;
  EXPECT_CONTAINS(r.err, bad + ": line 3: $.components.driver: unknown component \"driver\"");
}
