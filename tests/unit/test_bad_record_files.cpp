// Every kind of bad run record (tests/data/bad/record-*.json, written by make_bad_records.py)
// through the real binary: `compare`, `diff` and `gate` (which reads records with its own
// streaming reader) each exit 3 with one stderr line that names the file and the problem.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>

#include "cli_helpers.hpp"
#include "core/base/text_escape.hpp"
#include "process_helpers.hpp"

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
     "$.checks[0].metrics[0].median: median 771.5 disagrees with the samples (recomputed from the 5 samples: "
     "500)"},
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

TEST_F(BadRecordFiles, DirectoryAndDeviceAreNamedForWhatTheyAre) {
  const std::string baseline = shell_quote(kData + "/baselines/h200-sxm-141gb.yaml");
  expect_rejected("compare " + shell_quote(scratch_.string()) + " --baseline " + baseline, scratch_.string(),
                  "is a directory");
  expect_rejected("compare /dev/zero --baseline " + baseline, "/dev/zero", "is not a regular file");
}

TEST_F(BadRecordFiles, ARecordFromAPipeIsRead) {
  // `gpuqual compare <(cat record.json)`: a FIFO has no size; it is read up to the limit.
  const fs::path fifo = scratch_ / "record.fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string record = kData + "/records/synthetic-healthy.json";
  const auto r = run_cli("compare " + shell_quote(fifo.string()) + " --baseline " +
                             shell_quote(kData + "/baselines/h200-sxm-141gb.yaml") + " & cat " +
                             shell_quote(record) + " > " + shell_quote(fifo.string()) + "; wait $!",
                         scratch_, "GPUQUAL_BASELINES_DIR=");
  EXPECT_EQ(r.code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PASS"), std::string::npos) << r.out;
}

TEST_F(BadRecordFiles, GateJudgesThePoolAroundABadRecordAndNamesIt) {
  // One node's bad file does not stop a fleet gate: that node is `error`, the pool at best
  // inconclusive (exit 2), and the verdict names the file and the problem.
  const std::string good = shell_quote(kData + "/records/synthetic-healthy.json");
  const std::string baseline = shell_quote(kData + "/baselines/h200-sxm-141gb.yaml");
  for (const auto& [file, problem] : kBadRecords) {
    const std::string path = kData + "/bad/" + file;
    const auto r =
        run_cli("gate " + good + " " + shell_quote(path) + " --baseline " + baseline + " --max-failed 1",
                scratch_, "GPUQUAL_BASELINES_DIR=");
    EXPECT_EQ(r.code, 2) << file << "\n" << r.out << r.err;
    EXPECT_NE(r.out.find(path), std::string::npos) << file << "\n" << r.out;
    // The table wraps long reasons to the width.
    EXPECT_NE(gpuqual::testing::blanks_as_one(r.out).find(problem), std::string::npos) << file << "\n"
                                                                                       << r.out;
    EXPECT_NE(r.last_line().find("1 unreadable"), std::string::npos) << r.last_line();
  }
}

TEST_F(BadRecordFiles, GateNamesTheBadRecordWithLineAndColumnInEveryFormat) {
  const std::string good = shell_quote(kData + "/records/synthetic-healthy.json");
  const std::string bad = kData + "/bad/record-malformed.json";
  const std::string where = "line 152, column 23";  // as `compare` reports it
  const fs::path junit = scratch_ / "gate.xml", md = scratch_ / "gate.md", prom = scratch_ / "gate.prom";
  const auto r = run_cli("gate " + good + " " + shell_quote(bad) + " --baseline " +
                             shell_quote(kData + "/baselines/h200-sxm-141gb.yaml") +
                             " --max-failed 1 --junit " + shell_quote(junit.string()) + " --markdown " +
                             shell_quote(md.string()) + " --prometheus " + shell_quote(prom.string()),
                         scratch_, "GPUQUAL_BASELINES_DIR=");
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(gpuqual::testing::blanks_as_one(r.out).find(where), std::string::npos) << r.out;
  const auto json =
      run_cli("gate " + good + " " + shell_quote(bad) + " --baseline " +
                  shell_quote(kData + "/baselines/h200-sxm-141gb.yaml") + " --max-failed 1 --format json",
              scratch_, "GPUQUAL_BASELINES_DIR=");
  EXPECT_EQ(json.code, 2);
  EXPECT_NE(json.out.find(where), std::string::npos) << json.out;
  // The Markdown report writes record text backslash-escaped (gpuqual::escape_markdown): what it
  // renders is the path and the place.
  const std::pair<fs::path, bool> reports[] = {{junit, false}, {md, true}};
  for (const auto& report : reports) {
    const fs::path& f = report.first;
    const bool markdown = report.second;  // not a structured binding: clang < 16 cannot capture one (P1091)
    const std::string text = gpuqual::testing::read_text(f);
    const auto as_written = [&](const std::string& s) { return markdown ? gpuqual::escape_markdown(s) : s; };
    EXPECT_NE(text.find(as_written(bad)), std::string::npos) << f << "\n" << text;
    EXPECT_NE(text.find(as_written(where)), std::string::npos) << f << "\n" << text;
  }
  // Prometheus labels carry no free text: the node's series is there, with the error status.
  const std::string p = gpuqual::testing::read_text(prom);
  EXPECT_NE(p.find(bad), std::string::npos) << p;
}

TEST_F(BadRecordFiles, GateExits3WhenNotOneRecordCouldBeRead) {
  const std::string baseline = shell_quote(kData + "/baselines/h200-sxm-141gb.yaml");
  const std::string a = kData + "/bad/record-malformed.json";
  const std::string b = kData + "/bad/record-empty.json";
  expect_rejected("gate " + shell_quote(a) + " " + shell_quote(b) + " --baseline " + baseline, a,
                  "malformed JSON");
}

}  // namespace
