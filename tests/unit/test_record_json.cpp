#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/base/input_error.hpp"
#include "core/base/json_input.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "record_builders.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
using nlohmann::json;

namespace {

RunRecord sample_record() {
  RunRecord r = make_record(2);
  CheckResult c;
  c.name = "gemm";
  c.status = Status::pass;
  c.started_at = "2026-11-30T12:00:01Z";
  c.duration_s = 12.5;
  c.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {770, 772, 771}, 0));
  c.metrics.push_back(make_metric("gemm.bf16.tflops", "TFLOP/s", {769, 770, 771}, 1));
  c.findings.push_back(Finding{.code = "ecc.corrected_volatile",
                               .severity = Severity::info,
                               .gpu = 1,
                               .detail = "3 corrected errors",
                               .value = 3});
  c.per_gpu = {{0, Status::pass, "", ""}, {1, Status::pass, "", ""}};
  c.attributes["size"] = "8192";
  r.checks.push_back(c);
  return r;
}

// Expects record_from_json to reject `j` with a message that mentions `path` and `problem`.
void expect_rejected(const json& j, const std::string& path, const std::string& problem) {
  try {
    record_from_json(j, "rec.json");
    FAIL() << "accepted a record that should be rejected at " << path;
  } catch (const InputError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("rec.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << msg;
    EXPECT_NE(msg.find(problem), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "error must be one line: " << msg;
  }
}

}  // namespace

TEST(RecordJson, RoundTripKeepsEverything) {
  const RunRecord r = sample_record();
  const json j = to_json(r);
  const RunRecord back = record_from_json(j, "mem");
  EXPECT_EQ(to_json(back), j);
  ASSERT_EQ(back.checks.size(), 1u);
  EXPECT_EQ(back.checks[0].metrics[1].gpu, 1);
  EXPECT_EQ(back.checks[0].metrics[0].n(), 3u);
  EXPECT_EQ(j["checks"][0]["metrics"][0]["n"], 3);
  EXPECT_EQ(back.checks[0].findings[0].value, 3.0);
}

TEST(RecordJson, RejectsWrongSchemaVersion) {
  json j = to_json(sample_record());
  j["schema"] = "gpuqual.run/v2";
  expect_rejected(j, "$.schema", "unsupported schema");
}

TEST(RecordJson, RejectsMissingField) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0].erase("median");
  expect_rejected(j, "$.checks[0].metrics[0].median", "missing");
}

TEST(RecordJson, RejectsMistypedField) {
  json j = to_json(sample_record());
  j["checks"][0]["duration_s"] = "12.5";
  expect_rejected(j, "$.checks[0].duration_s", "expected a number");
}

TEST(RecordJson, RejectsNegativeWhereImpossible) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["samples"][1] = -5.0;
  expect_rejected(j, "$.checks[0].metrics[0].samples[1]", "below the minimum");
}

TEST(RecordJson, RejectsNullForNumberAsNonFinite) {
  // NaN is written by JSON libraries as null; a null median is a missing median.
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["median"] = nullptr;
  expect_rejected(j, "$.checks[0].metrics[0].median", "missing");
}

TEST(RecordJson, RejectsInfinityFromHugeLiteral) {
  const std::string text = to_json(sample_record()).dump();
  std::string bad = text;
  const std::string key = "\"duration_s\":12.5";
  const auto pos = bad.find(key);
  ASSERT_NE(pos, std::string::npos);
  bad.replace(pos, key.size(), "\"duration_s\":1e999");
  try {
    record_from_json(parse_json_text(bad, "rec.json"), "rec.json");
    FAIL() << "accepted 1e999";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("rec.json"), std::string::npos);
  }
}

TEST(RecordJson, RejectsDuplicateGpus) {
  json j = to_json(sample_record());
  j["gpus"][1]["index"] = 0;
  expect_rejected(j, "$.gpus[1].index", "duplicate GPU index");
  j = to_json(sample_record());
  j["gpus"][1]["uuid"] = j["gpus"][0]["uuid"];
  expect_rejected(j, "$.gpus[1].uuid", "duplicate GPU UUID");
}

TEST(RecordJson, RejectsUnknownUnitDirectionStatus) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["unit"] = "GBps";
  expect_rejected(j, "$.checks[0].metrics[0].unit", "unknown unit");
  j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["direction"] = "up";
  expect_rejected(j, "$.checks[0].metrics[0].direction", "unknown direction");
  j = to_json(sample_record());
  j["checks"][0]["status"] = "ok";
  expect_rejected(j, "$.checks[0].status", "unknown status");
}

TEST(RecordJson, RejectsUnknownFieldAsTypo) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["medain"] = 3;
  expect_rejected(j, "$.checks[0].metrics[0].medain", "unknown field");
}

TEST(RecordJson, RejectsMetricOnUnknownGpu) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["gpu"] = 7;
  expect_rejected(j, "$.checks[0].metrics[0].gpu", "GPU 7 is not in $.gpus");
}

TEST(RecordJson, RejectsSampleCountMismatchAndSkipWithoutReason) {
  json j = to_json(sample_record());
  j["checks"][0]["metrics"][0]["n"] = 5;
  expect_rejected(j, "$.checks[0].metrics[0].n", "n is 5 but there are 3 samples");
  j = to_json(sample_record());
  j["checks"][0]["status"] = "skip";
  expect_rejected(j, "$.checks[0].reason", "needs a reason");
}

TEST(RecordJson, RejectsNonObjectTop) { expect_rejected(json::array(), "$", "expected an object"); }

class RecordFile : public ::testing::Test {
 protected:
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("gpuqual-rec-" + std::to_string(::getpid()));
  void SetUp() override { std::filesystem::create_directories(dir); }
  void TearDown() override { std::filesystem::remove_all(dir); }
  std::string write(const std::string& name, const std::string& content) {
    const auto p = dir / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  void expect_input_error(const std::string& path, const std::string& problem) {
    try {
      read_record(path);
      FAIL() << "accepted " << path;
    } catch (const InputError& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(path), std::string::npos) << msg;
      EXPECT_NE(msg.find(problem), std::string::npos) << msg;
      EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    }
  }
};

TEST_F(RecordFile, WriteIsAtomicAndReadable) {
  const std::string p = (dir / "sub" / "rec.json").string();
  write_record(p, sample_record());
  EXPECT_EQ(to_json(read_record(p)), to_json(sample_record()));
  // No temp files are left behind.
  int files = 0;
  for (auto& e : std::filesystem::directory_iterator(dir / "sub")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 1);
}

TEST_F(RecordFile, BadFilesGiveOneLineErrors) {
  expect_input_error((dir / "missing.json").string(), "cannot open");
  expect_input_error(write("empty.json", ""), "empty");
  expect_input_error(write("blank.json", "  \n\t "), "empty");
  expect_input_error(write("garbage.bin", std::string("\x7f"
                                                      "ELF\0\0\x01",
                                                      7)),
                     "binary");
  expect_input_error(write("bad.json", "{\"schema\": "), "malformed JSON");
  expect_input_error(write("utf8.json", "{\"schema\": \"\xff\xfe\"}"), "malformed JSON");
  expect_input_error(write("deep.json", std::string(10000, '[') + std::string(10000, ']')), "nesting deeper");
}

TEST_F(RecordFile, OversizedFileIsRejectedBeforeParsing) {
  const std::string p = write("big.json", std::string(2048, ' ') + "{}");
  try {
    read_json_file(p, JsonLimits{1024, 64});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("over the limit"), std::string::npos);
  }
}

namespace gpuqual {
namespace {

TEST(RecordText, NumberArraysGoOnOneLineAndTheJsonIsUnchanged) {
  const RunRecord r = sample_record();
  const std::string text = record_to_text(r);
  EXPECT_EQ(json::parse(text), to_json(r));
  EXPECT_EQ(text.back(), '\n');
  // Every samples array is on its line; no line holds a bare number any more.
  std::istringstream lines(text);
  std::string line;
  int sample_lines = 0;
  while (std::getline(lines, line)) {
    if (line.find("\"samples\": [") != std::string::npos) {
      ++sample_lines;
      EXPECT_NE(line.find(']'), std::string::npos) << line;
    }
    const auto c = line.find_first_not_of(' ');
    if (c != std::string::npos) {
      EXPECT_FALSE(std::isdigit(static_cast<unsigned char>(line[c]))) << line;
    }
  }
  EXPECT_GT(sample_lines, 0);
}

TEST(RecordText, OnlyArraysOfNumbersAreCollapsed) {
  const json j = {{"argv", {"gpuqual", "run", "--suite", "canary"}},
                  {"mixed", {1, "two", 3}},
                  {"nested", {{1, 2}, {3, 4}}},
                  {"empty", json::array()},
                  {"numbers", {-1.5, 2e-9, 0, 1e+300}},
                  {"text", "a [\n1,\n2\n] inside a string"}};
  const std::string out = collapse_number_arrays(j.dump(2));
  EXPECT_EQ(json::parse(out), j);
  EXPECT_NE(out.find("\"numbers\": [-1.5, 2e-09, 0, 1e+300]"), std::string::npos) << out;
  // The inner arrays are numbers, the outer one is not.
  EXPECT_NE(out.find("\"nested\": [\n    [1, 2],\n    [3, 4]\n  ]"), std::string::npos) << out;
  EXPECT_NE(out.find("\"argv\": [\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\"mixed\": [\n"), std::string::npos) << out;
  EXPECT_NE(out.find("\"empty\": []"), std::string::npos) << out;
}

}  // namespace
}  // namespace gpuqual
