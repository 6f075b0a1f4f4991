// `gpuqual compare` end to end: the real binary (GPUQUAL_BINARY) on the fixture records, for
// every exit code, with the summary as the last stdout line.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kData = GPUQUAL_TEST_DATA;

using gpuqual::testing::CliRun;
using gpuqual::testing::run_cli;
std::string quote(const std::string& s) { return gpuqual::testing::shell_quote(s); }

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliCompare : public gpuqual::testing::ScratchDirTest {
 protected:
  CliCompare() : ScratchDirTest("cli-compare") {}

  // Runs `gpuqual <args>` with a clean GPUQUAL_BASELINES_DIR unless `env` sets one.
  CliRun gpuqual(const std::string& args, const std::string& env = "GPUQUAL_BASELINES_DIR=") {
    return run_cli(args, scratch_, env);
  }
  std::string record(const std::string& name) { return quote(kData + "/records/" + name + ".json"); }
  std::string test_baselines() { return " --baselines-dir " + quote(kData + "/baselines"); }
};

}  // namespace

TEST_F(CliCompare, HealthyExits0) {
  const CliRun r = gpuqual("compare " + record("synthetic-healthy") + test_baselines());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_EQ(r.last_line(), "gpuqual: PASS node-a h200-sxm-141gb: 8 of 8 metrics passed, 1 finding");
  EXPECT_NE(r.out.find("METRIC"), std::string::npos);
}

TEST_F(CliCompare, SlowGpuExits1) {
  const CliRun r = gpuqual("compare " + record("synthetic-slow-gpu") + test_baselines());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(
      r.last_line().rfind(
          "gpuqual: FAIL node-a h200-sxm-141gb: 1 of 8 metrics failed (gemm.bf16.tflops gpu 1 -7.1% < -5.0%)",
          0),
      0u)
      << r.last_line();
}

TEST_F(CliCompare, EccFindingExits1) {
  const CliRun r = gpuqual("compare " + record("synthetic-ecc-uncorrected") + test_baselines());
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(r.last_line().rfind("gpuqual: FAIL ", 0), 0u) << r.last_line();
}

TEST_F(CliCompare, MissingMetricAndErroredCheckExit2) {
  for (const char* name : {"synthetic-missing-metric", "synthetic-errored-check"}) {
    const CliRun r = gpuqual("compare " + record(name) + test_baselines());
    EXPECT_EQ(r.code, 2) << name << "\n" << r.out << r.err;
    EXPECT_EQ(r.last_line().rfind("gpuqual: INCONCLUSIVE node-a ", 0), 0u) << r.last_line();
  }
}

TEST_F(CliCompare, UnknownClassExits2WithTheReason) {
  const CliRun r = gpuqual("compare " + record("synthetic-unknown-class") + test_baselines());
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_EQ(r.last_line(), "gpuqual: INCONCLUSIVE node-x unknown: no baseline, 1 finding");
}

TEST_F(CliCompare, ClassWithoutABaselineFileExits2) {
  const CliRun r =
      gpuqual("compare " + record("synthetic-healthy") + " --baselines-dir " + quote(scratch_.string()));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("no baseline"), std::string::npos) << r.err;
  EXPECT_EQ(r.last_line().rfind("gpuqual: INCONCLUSIVE node-a h200-sxm-141gb: no baseline,", 0), 0u);
}

TEST_F(CliCompare, BaselinesDirFromTheEnvironment) {
  const CliRun r = gpuqual("compare " + record("synthetic-healthy"),
                           "GPUQUAL_BASELINES_DIR=" + quote(kData + "/baselines"));
  EXPECT_EQ(r.code, 0) << r.out << r.err;
}

TEST_F(CliCompare, ExplicitBaselineFileAndClassOverride) {
  const std::string file = quote(kData + "/baselines/h200-sxm-141gb.yaml");
  EXPECT_EQ(gpuqual("compare " + record("synthetic-healthy") + " --baseline " + file).code, 0);
  // The unknown-class record measures like a healthy H200: judged as one on request.
  const CliRun r =
      gpuqual("compare " + record("synthetic-unknown-class") + " --class h200-sxm-141gb" + test_baselines());
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  // A baseline of another class is refused rather than judged against.
  const CliRun wrong = gpuqual("compare " + record("synthetic-unknown-class") + " --baseline " + file);
  EXPECT_EQ(wrong.code, 3) << wrong.out << wrong.err;
  EXPECT_NE(wrong.err.find("baseline is for class h200-sxm-141gb but the record is class unknown"),
            std::string::npos)
      << wrong.err;
}

TEST_F(CliCompare, WarnExits0AndStrictExits1) {
  const CliRun lenient = gpuqual("compare " + record("synthetic-warn") + test_baselines());
  EXPECT_EQ(lenient.code, 0) << lenient.out << lenient.err;
  EXPECT_EQ(lenient.last_line().rfind("gpuqual: WARN ", 0), 0u) << lenient.last_line();
  const CliRun strict = gpuqual("compare --strict " + record("synthetic-warn") + test_baselines());
  EXPECT_EQ(strict.code, 1) << strict.out << strict.err;
  EXPECT_EQ(strict.last_line().rfind("gpuqual: FAIL ", 0), 0u) << strict.last_line();
}

TEST_F(CliCompare, JsonFormatThenSummary) {
  const CliRun r = gpuqual("compare --format json " + record("synthetic-slow-gpu") + test_baselines());
  EXPECT_EQ(r.code, 1);
  const std::string last = r.last_line();
  EXPECT_EQ(last.rfind("gpuqual: FAIL ", 0), 0u);
  const auto doc = nlohmann::json::parse(r.out.substr(0, r.out.size() - last.size() - 1));
  EXPECT_EQ(doc["schema"], "gpuqual.verdict/v1");
  EXPECT_EQ(doc["outcome"], "fail");
  EXPECT_EQ(doc["summary"], last);
}

TEST_F(CliCompare, WritesEveryReportFile) {
  const fs::path junit = scratch_ / "junit.xml", prom = scratch_ / "gpuqual.prom",
                 md = scratch_ / "report.md";
  const CliRun r = gpuqual("compare " + record("synthetic-ecc-uncorrected") + test_baselines() + " --junit " +
                           quote(junit.string()) + " --prometheus " + quote(prom.string()) + " --markdown " +
                           quote(md.string()));
  EXPECT_EQ(r.code, 1) << r.out << r.err;
  EXPECT_EQ(slurp(junit).rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites ", 0), 0u);
  EXPECT_NE(slurp(prom).find("gpuqual_verdict{node=\"node-a\""), std::string::npos);
  EXPECT_EQ(slurp(md).rfind("# gpuqual compare: FAIL", 0), 0u);
  // Atomic writes leave no temp files behind.
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(scratch_)) ++files;
  EXPECT_EQ(files, 4);  // the three reports and stderr.txt
}

TEST_F(CliCompare, BadInputsExit3) {
  std::ofstream(scratch_ / "not-a-dir") << "a file where a report directory would have to be\n";
  struct Case {
    std::string args, stderr_has;
  };
  const std::vector<Case> cases = {
      {"compare", "RECORD is required"},
      {"compare " + record("synthetic-healthy") + " --format xml", "--format"},
      {"compare " + record("synthetic-healthy") + " --no-such-flag", "no-such-flag"},
      {"compare " + record("synthetic-healthy") + " --class 'H200 SXM'", "--class"},
      {"compare " + quote((scratch_ / "missing.json").string()), "missing.json: cannot open"},
      {"compare " + record("synthetic-healthy") + " --baseline " +
           quote(kData + "/bad/baseline-negative-tolerance.yaml"),
       "baseline-negative-tolerance.yaml: line 10: $.metrics[0].tolerance: "},
      {"compare " + record("synthetic-healthy") + test_baselines() + " --junit " +
           quote((scratch_ / "not-a-dir/j.xml").string()),
       "cannot write the report"},
  };
  for (const auto& c : cases) {
    const CliRun r = gpuqual(c.args);
    EXPECT_EQ(r.code, 3) << c.args << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.stderr_has), std::string::npos) << c.args << "\nstderr: " << r.err;
  }
}

TEST_F(CliCompare, MalformedRecordExits3WithOneLine) {
  const fs::path bad = scratch_ / "bad.json";
  std::ofstream(bad) << "{\"schema\": \"gpuqual.run/v1\", ";
  const CliRun r = gpuqual("compare " + quote(bad.string()) + test_baselines());
  EXPECT_EQ(r.code, 3);
  EXPECT_EQ(r.err.rfind("gpuqual: error: " + bad.string() + ": malformed JSON", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}
