// A GPU NVML reports lost (NVML_ERROR_GPU_IS_LOST) and GPUs NVML could not read, judged from
// what the record and the health snapshot say (docs/inventory.md, "GPUs NVML cannot read";
// docs/health.md, gpu.lost): the health rules, the record's inventory rows, the expected GPU
// count, the severity at judging time of an older record, the strict reader, and compare, gate
// and diff of a fixture record through the real binary. The NVML side (the fake library
// answering GPU_IS_LOST on each kind of call) is tests/mig/test_gpu_lost.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/record/record_io.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_snapshot_json.hpp"
#include "core/verdict/expected_gpus.hpp"
#include "core/verdict/lost_gpus.hpp"
#include "record_builders.hpp"
#include "tests/support/shipped_severity.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;
namespace fs = std::filesystem;

namespace {

const std::string kData = GPUQUAL_TEST_DATA;
const std::string kLost = "uuid: NVML_ERROR_GPU_IS_LOST: GPU is lost";

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

HealthSnapshot healthy_snapshot() { return load_health_snapshot(kData + "/health/healthy.json"); }

std::vector<const Finding*> all(const std::vector<Finding>& findings, const std::string& code) {
  std::vector<const Finding*> out;
  for (const auto& f : findings) {
    if (f.code == code) out.push_back(&f);
  }
  return out;
}

const FindingRow* row(const Verdict& v, const std::string& code) {
  for (const auto& r : v.findings) {
    if (r.finding.code == code) return &r;
  }
  return nullptr;
}

}  // namespace

TEST(LostGpuHealthRules, ALostReadingFailsTheGpuAndItDoesNotCount) {
  HealthSnapshot s = healthy_snapshot();
  ASSERT_GE(s.gpus.size(), 2u);
  const int listed = static_cast<int>(s.gpus.size());
  s.nvml_gpu_count = listed;
  s.gpus[1].unread.push_back("ecc_mode: NVML_ERROR_GPU_IS_LOST: GPU is lost");
  HealthPolicy p;
  p.expect_gpus = listed;
  const HealthEvaluation ev = evaluate_health(s, nullptr, p, shipped());
  EXPECT_EQ(ev.status, Status::fail) << ev.reason;
  const auto lost = all(ev.findings, "gpu.lost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]->gpu, s.gpus[1].index);
  EXPECT_EQ(lost[0]->severity, Severity::fail);
  EXPECT_NE(lost[0]->action.find("reset"), std::string::npos) << lost[0]->action;
  // Not "readings unavailable" (info): the lost answer is gpu.lost's alone.
  for (const Finding* f : all(ev.findings, "nvml.readings_unavailable")) {
    EXPECT_EQ(f->detail.find("GPU_IS_LOST"), std::string::npos) << f->detail;
  }
  // nvmlDeviceGetCount still counts it: the lost GPU counts against the expected count.
  const auto count = all(ev.findings, "gpu.count_mismatch");
  ASSERT_EQ(count.size(), 1u);
  EXPECT_EQ(count[0]->value, listed - 1);
}

TEST(LostGpuHealthRules, ALostDeviceNotTiedToAGpuFailsTheNode) {
  HealthSnapshot s = healthy_snapshot();
  const int listed = static_cast<int>(s.gpus.size()) + 1;
  s.nvml_gpu_count = listed;
  s.unidentified.push_back("NVML GPU 7: handle: NVML_ERROR_GPU_IS_LOST: GPU is lost");
  HealthPolicy p;
  p.expect_gpus = listed;
  const HealthEvaluation ev = evaluate_health(s, nullptr, p, shipped());
  EXPECT_EQ(ev.status, Status::fail) << ev.reason;
  const auto lost = all(ev.findings, "gpu.lost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_FALSE(lost[0]->gpu.has_value());
  EXPECT_EQ(all(ev.findings, "gpu.count_mismatch").size(), 1u);
}

TEST(LostGpuHealthRules, ADeviceUnreadForAnotherReasonNeverPasses) {
  HealthSnapshot s = healthy_snapshot();
  s.unidentified.push_back("NVML GPU 7: uuid: NVML_ERROR_UNKNOWN; pci_bus_id: NVML_ERROR_UNKNOWN");
  const HealthEvaluation ev = evaluate_health(s, nullptr, {}, shipped());
  EXPECT_EQ(ev.status, Status::error) << ev.reason;
  EXPECT_NE(ev.reason.find("NVML GPU 7"), std::string::npos) << ev.reason;
  // Nothing but that device: still not "NVML sees no GPU".
  HealthSnapshot only = s;
  only.gpus.clear();
  EXPECT_EQ(evaluate_health(only, nullptr, {}, shipped()).status, Status::error);
}

TEST(LostGpuHealthRules, AnXidWatchThatLostAGpuFails) {
  HealthPolicy p;
  p.xid_watch_off = "waits failed: nvmlEventSetWait_v2: NVML_ERROR_GPU_IS_LOST: GPU is lost (4 failed waits)";
  const HealthEvaluation lost = evaluate_health(healthy_snapshot(), nullptr, p, shipped());
  EXPECT_EQ(lost.status, Status::fail) << lost.reason;
  EXPECT_EQ(all(lost.findings, "gpu.lost").size(), 1u);
  p.xid_watch_off = "waits failed: nvmlEventSetWait_v2: NVML_ERROR_UNKNOWN (1 failed wait)";
  EXPECT_EQ(evaluate_health(healthy_snapshot(), nullptr, p, shipped()).status, Status::error);
}

TEST(LostGpuHealthRules, TheSnapshotKeepsItsUnidentifiedDevices) {
  HealthSnapshot s = healthy_snapshot();
  s.unidentified.push_back("NVML GPU 7: handle: NVML_ERROR_GPU_IS_LOST: GPU is lost");
  const HealthSnapshot back = health_snapshot_from_json(to_json(s), "round-trip.json");
  EXPECT_EQ(back.unidentified, s.unidentified);
}

TEST(LostGpuJudging, AnOlderRecordsLostAnswerTakesGpuLostsSeverity) {
  const Finding old{"nvml.readings_unavailable",
                    Severity::info,
                    1,
                    "GPU 1: not read: NVML GPU 1: NVML_ERROR_GPU_IS_LOST: GPU is lost",
                    "",
                    1.0};
  EXPECT_EQ(with_table_severity(shipped(), old).severity, Severity::fail);
  Finding other = old;
  other.detail = "GPU 1: not read: slowdown_temp: NVML_ERROR_NOT_SUPPORTED";
  EXPECT_EQ(with_table_severity(shipped(), other).severity, Severity::info);
}

TEST(LostGpuJudging, ALostGpuIsListedNotPresentAndFailsCompare) {
  RunRecord r = make_record(2);
  r.gpus[1].nvml_unread.push_back(kLost);
  EXPECT_TRUE(gpu_lost(r.gpus[1]));
  EXPECT_FALSE(gpu_lost(r.gpus[0]));
  EXPECT_EQ(present_gpu_count(r), 1);
  const auto expected = expected_gpu_count(r, nullptr, std::nullopt);
  ASSERT_TRUE(expected);
  const auto missing = missing_gpus_row(r, *expected);
  ASSERT_TRUE(missing);
  EXPECT_NE(missing->reason.find("1 usable, 1 lost"), std::string::npos) << missing->reason;
  const Verdict v = compare_record(r, nullptr, CompareOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail);
  const FindingRow* lost = row(v, "gpu.lost");
  ASSERT_NE(lost, nullptr);
  EXPECT_EQ(lost->status, Status::fail);
  EXPECT_EQ(lost->finding.gpu, 1);
  EXPECT_NE(row(v, "gpu.missing"), nullptr);
  // The same record after an earlier healthy one: diff fails it too.
  EXPECT_EQ(diff_records(make_record(2), r, DiffOptions{}).outcome, Outcome::fail);
}

TEST(LostGpuJudging, AGpuNvmlCouldNotNameNeverPasses) {
  RunRecord r = make_record(1);
  r.gpus[0].nvml_unread.push_back("pci_bus_id: NVML_ERROR_UNKNOWN: Unknown Error");
  auto rows = nvml_unread_rows(r, "inventory");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].finding.code, "gpu.nvml_unread");
  EXPECT_EQ(rows[0].status, Status::error);
  EXPECT_EQ(present_gpu_count(r), 1);
  r.gpus[0].nvml_unread.clear();
  r.node.nvml_devices_unread.push_back(
      "NVML GPU 1: uuid: NVML_ERROR_UNKNOWN; pci_bus_id: NVML_ERROR_UNKNOWN");
  rows = nvml_unread_rows(r, "inventory");
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, Status::error);
  EXPECT_FALSE(rows[0].finding.gpu.has_value());
  r.node.nvml_devices_unread.push_back("NVML GPU 2: handle: NVML_ERROR_GPU_IS_LOST: GPU is lost");
  rows = nvml_unread_rows(r, "inventory");
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].finding.code, "gpu.lost");
  EXPECT_EQ(rows[1].status, Status::fail);
}

class LostGpuRecord : public ScratchDirTest {
 protected:
  LostGpuRecord() : ScratchDirTest("lost-gpu-record") {}
  CliRun gpuqual(const std::string& args) { return run_cli(args, scratch_, "GPUQUAL_BASELINES_DIR="); }
  static std::string record(const std::string& name) {
    return shell_quote(kData + "/records/" + name + ".json");
  }
  static std::string baselines() { return " --baselines-dir " + shell_quote(kData + "/baselines"); }
};

TEST_F(LostGpuRecord, TheReaderKeepsWhatNvmlFailedToGive) {
  RunRecord r = make_record(2);
  r.gpus[1].nvml_unread = {kLost, "pci_bus_id: NVML_ERROR_GPU_IS_LOST: GPU is lost"};
  r.node.nvml_devices_unread = {"NVML GPU 2: handle: NVML_ERROR_UNKNOWN: Unknown Error"};
  const std::string path = (scratch_ / "lost.json").string();
  write_record(path, r);
  const RunRecord back = read_record(path);
  EXPECT_EQ(back.gpus[1].nvml_unread, r.gpus[1].nvml_unread);
  EXPECT_TRUE(back.gpus[0].nvml_unread.empty());
  EXPECT_EQ(back.node.nvml_devices_unread, r.node.nvml_devices_unread);
  // An empty entry names nothing: refused as bad input.
  std::string text = read_text(path);
  const std::string key = "\"nvml_devices_unread\": [";
  const auto at = text.find(key);
  ASSERT_NE(at, std::string::npos) << text;
  text.insert(at + key.size(), "\"\", ");
  std::ofstream(path, std::ios::trunc) << text;
  EXPECT_THROW(read_record(path), InputError);
}

TEST_F(LostGpuRecord, CompareGateAndDiffFailTheFixture) {
  const CliRun c = gpuqual("compare " + record("synthetic-gpu-lost") + baselines());
  EXPECT_EQ(c.code, 1) << c.out << c.err;
  EXPECT_NE(c.out.find("gpu.lost"), std::string::npos) << c.out;
  const CliRun g =
      gpuqual("gate " + record("synthetic-healthy") + " " + record("synthetic-gpu-lost") + baselines());
  EXPECT_EQ(g.code, 1) << g.out << g.err;
  const CliRun d = gpuqual("diff " + record("synthetic-healthy") + " " + record("synthetic-gpu-lost"));
  EXPECT_EQ(d.code, 1) << d.out << d.err;
  EXPECT_NE(d.out.find("gpu.lost"), std::string::npos) << d.out;
  // The healthy record it was made from passes.
  EXPECT_EQ(gpuqual("compare " + record("synthetic-healthy") + baselines()).code, 0);
}
