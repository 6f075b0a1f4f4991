// Every kind of bad run record (tests/data/bad/record-*.json, written by make_bad_records.py)
// through the real binary: `compare`, `diff` and `gate` (which reads records with its own
// streaming reader) each exit 3 with one stderr line that names the file and the problem.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "cli_helpers.hpp"

namespace fs = std::filesystem;
using gpuqual::testing::run_cli;
using gpuqual::testing::shell_quote;

namespace {

const std::string kData = GPUQUAL_TEST_DATA;

// File → a piece of the problem text every reader must name.
const std::map<std::string, std::string> kBadRecords = {
    {"record-empty.json", "empty"},
    {"record-binary.json", "binary"},
    {"record-malformed.json", "malformed JSON"},
    {"record-nan.json", "malformed JSON"},
    {"record-huge-number.json", "number"},  // 1e999 overflows a double
    {"record-deep-nesting.json", "nesting deeper than"},
    {"record-wrong-schema.json", "unsupported schema \"gpuqual.run/v2\""},
    {"record-not-a-record.json", "unsupported schema \"gpuqual.baseline/v1\""},
    {"record-missing-field.json", "$.gpus: required field is missing"},
    {"record-mistyped-field.json", "$.gpus[0].sm_count"},
    {"record-negative-duration.json", "$.checks[0].duration_s"},
    {"record-duplicate-gpu.json", "duplicate GPU"},
    {"record-unknown-unit.json", "unknown unit \"furlongs\""},
    {"record-unknown-direction.json", "unknown direction \"sideways\""},
    {"record-unknown-status.json", "unknown status \"ok\""},
    {"record-unknown-field.json", "$.hardware_klass: unknown field"},
    {"record-summary-mismatch.json",
     "$.checks[0].metrics[0].median: median 771.5 disagrees with the samples (recomputed from the 5 samples: 500)"},
};

class BadRecordFiles : public gpuqual::testing::ScratchDirTest {
 protected:
  BadRecordFiles() : ScratchDirTest("bad-records") {}

  void expect_rejected(const std::string& command, const std::string& file, const std::string& problem) {
    const auto r = run_cli(command, scratch_, "GPUQUAL_BASELINES_DIR=");
    EXPECT_EQ(r.code, 3) << command << "\n" << r.err;
    EXPECT_NE(r.err.find(file + ": "), std::string::npos) << command << "\nstderr: " << r.err;
    EXPECT_NE(r.err.find(problem), std::string::npos) << command << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << command << "\nstderr: " << r.err;
  }
};

TEST_F(BadRecordFiles, EveryFixtureExists) {
  std::size_t on_disk = 0;
  for (const auto& e : fs::directory_iterator(kData + "/bad")) {
    const std::string name = e.path().filename().string();
    if (name.rfind("record-", 0) != 0) continue;
    ++on_disk;
    EXPECT_TRUE(kBadRecords.count(name)) << name << " has no expected problem in this test";
  }
  EXPECT_EQ(on_disk, kBadRecords.size());
}

TEST_F(BadRecordFiles, CompareExits3WithOneLine) {
  const std::string baseline = shell_quote(kData + "/baselines/h200-sxm-141gb.yaml");
  for (const auto& [file, problem] : kBadRecords) {
    const std::string path = kData + "/bad/" + file;
    expect_rejected("compare " + shell_quote(path) + " --baseline " + baseline, path, problem);
  }
}

TEST_F(BadRecordFiles, DiffExits3WhicheverSideIsBad) {
  const std::string good = shell_quote(kData + "/records/synthetic-healthy.json");
  for (const auto& [file, problem] : kBadRecords) {
    const std::string path = kData + "/bad/" + file;
    expect_rejected("diff " + good + " " + shell_quote(path), path, problem);
    expect_rejected("diff " + shell_quote(path) + " " + good, path, problem);
  }
}

TEST_F(BadRecordFiles, GateExits3OnABadRecordInThePool) {
  const std::string good = shell_quote(kData + "/records/synthetic-healthy.json");
  const std::string baseline = shell_quote(kData + "/baselines/h200-sxm-141gb.yaml");
  for (const auto& [file, problem] : kBadRecords) {
    const std::string path = kData + "/bad/" + file;
    expect_rejected("gate " + good + " " + shell_quote(path) + " --baseline " + baseline, path, problem);
  }
}

}  // namespace
