// A GPU NVML reports lost (docs/inventory.md, "GPUs NVML cannot read"; docs/health.md, gpu.lost):
// the fake NVML (tests/mig/fake_nvml.cpp) answers NVML_ERROR_GPU_IS_LOST on one kind of call at a
// time (the handle, the UUID, the PCI info, a reading, a sample, the Xid event wait) for one GPU
// of a healthy record's node. The real NVML code reads it (the inventory's add_nvml_facts and
// gpus_from_nvml, NvmlHealthReader and the health rules, RunHealthMonitor's Xid watch), the
// record is written, and `gpuqual compare` of that record must exit 1 naming gpu.lost; the same
// path without the fault passes (exit 0), so the test cannot pass on a record that never passes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "core/record/record_io.hpp"
#include "core/rules/health_rules.hpp"
#include "device/monitor/run_monitor.hpp"
#include "device/nvml/nvml_inventory.hpp"
#include "device/nvml/nvml_library.hpp"
#include "device/nvml/nvml_snapshot.hpp"
#include "tests/support/shipped_severity.hpp"

namespace gpuqual {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kData = GPUQUAL_TEST_DATA;

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

struct CliResult {
  int code = -1;
  std::string out;
};

// `gpuqual compare <record>` against the test baselines, stdout and stderr together.
CliResult compare(const fs::path& record) {
  const std::string cmd = std::string("env GPUQUAL_BASELINES_DIR= '") + GPUQUAL_BINARY + "' compare '" +
                          record.string() + "' --baselines-dir '" + kData + "/baselines' 2>&1";
  CliResult r;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = ::pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

class GpuLost : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("gpuqual-gpu-lost-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    record_ = read_record(kData + "/records/synthetic-healthy.json");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // The record's GPUs as the fake's topology; GPU 1 answers `faults`, the wait `event_wait`.
  void use_topology(const json& faults, const std::string& event_wait = "") {
    json top{{"gpus", json::array()}};
    for (const GpuInfo& g : record_.gpus) {
      json spec{{"name", g.name},
                {"uuid", g.uuid},
                {"pci_bus_id", g.pci_bus_id},
                {"memory_mib", g.memory_bytes >> 20},
                {"compute_capability", g.compute_capability}};
      if (g.index == 1) spec["faults"] = faults;
      top["gpus"].push_back(spec);
    }
    if (!event_wait.empty()) top["event_wait"] = event_wait;
    const fs::path path = dir_ / "topology.json";
    std::ofstream(path) << top.dump();
    ::setenv("GPUQUAL_FAKE_NVML_TOPOLOGY", path.c_str(), 1);
  }

  // The inventory's NVML side over the record's GPUs as CUDA listed them, and the health check's
  // judgement of one read and one sample, in place of the record's own.
  void inventory_and_health() {
    NvmlSession nvml = NvmlSession::open(GPUQUAL_FAKE_NVML);
    ASSERT_TRUE(nvml.ok()) << nvml.reason();
    add_nvml_facts(nvml, record_.gpus, record_.node);
    NvmlHealthReader reader(nvml, record_.gpus);
    HealthSnapshot s = reader.read();
    reader.sample(s);
    HealthPolicy policy;
    policy.expect_gpus = 2;
    HealthEvaluation ev = evaluate_health(s, nullptr, policy, shipped());
    for (CheckResult& c : record_.checks) {
      if (c.name != "health") continue;
      c.status = ev.status;
      c.reason = ev.reason;
      c.findings = ev.findings;
      c.per_gpu = ev.per_gpu;
    }
    health_ = ev;
  }

  CliResult compare_record() {
    const fs::path path = dir_ / "record.json";
    write_record(path.string(), record_);
    (void)read_record(path.string());  // the strict reader takes what the writer wrote
    return compare(path);
  }

  bool health_has(const std::string& code) const {
    for (const Finding& f : health_.findings) {
      if (f.code == code) return true;
    }
    return false;
  }

  fs::path dir_;
  RunRecord record_;
  HealthEvaluation health_;
};

TEST_F(GpuLost, WithoutAFaultTheSamePathPasses) {
  use_topology(json::object());
  inventory_and_health();
  EXPECT_EQ(health_.status, Status::pass) << health_.reason;
  for (const GpuInfo& g : record_.gpus) EXPECT_TRUE(g.nvml_unread.empty()) << g.nvml_unread.front();
  EXPECT_TRUE(record_.node.nvml_devices_unread.empty());
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 0) << r.out;
}

// Each kind of call NVML can answer GPU_IS_LOST to, one at a time.
class GpuLostOnCall : public GpuLost, public ::testing::WithParamInterface<const char*> {};

TEST_P(GpuLostOnCall, FailsHealthAndCompare) {
  use_topology(json{{GetParam(), "GPU_IS_LOST"}});
  inventory_and_health();
  EXPECT_EQ(health_.status, Status::fail) << health_.reason;
  EXPECT_TRUE(health_has("gpu.lost")) << health_.reason;
  // The lost GPU does not count: NVML lists 2, one is lost, 2 are expected.
  EXPECT_TRUE(health_has("gpu.count_mismatch")) << health_.reason;
  ASSERT_EQ(health_.per_gpu.size(), 2u);
  EXPECT_EQ(health_.per_gpu[1].status, Status::fail) << health_.per_gpu[1].reason;
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("gpu.lost"), std::string::npos) << r.out;
}

INSTANTIATE_TEST_SUITE_P(EachCall, GpuLostOnCall,
                         ::testing::Values("handle", "uuid", "pci", "ecc_mode", "clock_event_reasons"));

TEST_F(GpuLost, TheInventoryListsWhatFailedOnTheGpuItCannotDrop) {
  use_topology(json{{"handle", "GPU_IS_LOST"}});
  inventory_and_health();
  ASSERT_EQ(record_.gpus.size(), 2u);
  ASSERT_EQ(record_.gpus[1].nvml_unread.size(), 1u);
  EXPECT_EQ(record_.gpus[1].nvml_unread[0].rfind("handle: NVML_ERROR_GPU_IS_LOST", 0), 0u)
      << record_.gpus[1].nvml_unread[0];
  // The device NVML could not open is accounted for by the GPU that answered it by bus id.
  EXPECT_TRUE(record_.node.nvml_devices_unread.empty()) << record_.node.nvml_devices_unread.front();
}

TEST_F(GpuLost, WithoutCudaALostDeviceIsListedOnTheNode) {
  use_topology(json{{"handle", "GPU_IS_LOST"}});
  NvmlSession nvml = NvmlSession::open(GPUQUAL_FAKE_NVML);
  ASSERT_TRUE(nvml.ok()) << nvml.reason();
  NodeFacts node;
  std::string count_error;
  const std::vector<GpuInfo> gpus = gpus_from_nvml(nvml, node, &count_error);
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].uuid, record_.gpus[0].uuid);
  ASSERT_EQ(node.nvml_devices_unread.size(), 1u);
  EXPECT_EQ(node.nvml_devices_unread[0].rfind("NVML GPU 1: handle: NVML_ERROR_GPU_IS_LOST", 0), 0u)
      << node.nvml_devices_unread[0];
  // Judged from the record: the device fails the node though no GPU of the record names it.
  record_.node.nvml_devices_unread = node.nvml_devices_unread;
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("gpu.lost"), std::string::npos) << r.out;
}

// A UUID and bus id NVML does not give for another reason: never dropped, never a pass.
TEST_F(GpuLost, AnUnidentifiedDeviceIsListedAndInconclusive) {
  use_topology(json{{"uuid", "UNKNOWN"}, {"pci", "UNKNOWN"}});
  inventory_and_health();
  ASSERT_EQ(record_.node.nvml_devices_unread.size(), 1u);
  const std::string& listed = record_.node.nvml_devices_unread[0];
  EXPECT_NE(listed.find("uuid: NVML_ERROR_UNKNOWN"), std::string::npos) << listed;
  EXPECT_NE(listed.find("pci_bus_id: NVML_ERROR_UNKNOWN"), std::string::npos) << listed;
  EXPECT_EQ(health_.status, Status::error) << health_.reason;
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.out.find("gpu.nvml_unread"), std::string::npos) << r.out;
}

TEST_F(GpuLost, AUuidNotReadForAnotherReasonIsListedOnTheGpuAndInconclusive) {
  use_topology(json{{"uuid", "UNKNOWN"}});
  inventory_and_health();
  ASSERT_EQ(record_.gpus[1].nvml_unread.size(), 1u);
  EXPECT_EQ(record_.gpus[1].nvml_unread[0].rfind("uuid: NVML_ERROR_UNKNOWN", 0), 0u);
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 2) << r.out;
}

// The Xid watch over the whole run: a wait NVML answers GPU_IS_LOST fails the node; a wait that
// fails otherwise never passes. stop() asks once more without waiting, so the answer is in
// whichever way the thread and stop() interleave.
TEST_F(GpuLost, AnXidWaitAnsweredLostFailsTheWatchAndCompare) {
  use_topology(json::object(), "GPU_IS_LOST");
  RunHealthMonitor monitor(record_.gpus, GPUQUAL_FAKE_NVML);
  monitor.start("");
  const CheckResult xid = monitor.stop(shipped());
  EXPECT_EQ(xid.status, Status::fail) << xid.reason;
  ASSERT_FALSE(xid.findings.empty());
  EXPECT_EQ(xid.findings.back().code, "gpu.lost");
  EXPECT_NE(xid.reason.find("nvmlEventSetWait_v2: NVML_ERROR_GPU_IS_LOST"), std::string::npos) << xid.reason;
  record_.checks.push_back(xid);
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 1) << r.out;
  EXPECT_NE(r.out.find("gpu.lost"), std::string::npos) << r.out;
}

TEST_F(GpuLost, AnXidWaitThatFailsOtherwiseIsAnError) {
  use_topology(json::object(), "UNKNOWN");
  RunHealthMonitor monitor(record_.gpus, GPUQUAL_FAKE_NVML);
  monitor.start("");
  const CheckResult xid = monitor.stop(shipped());
  EXPECT_EQ(xid.status, Status::error) << xid.reason;
  EXPECT_NE(xid.reason.find("nvmlEventSetWait_v2: NVML_ERROR_UNKNOWN"), std::string::npos) << xid.reason;
  record_.checks.push_back(xid);
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 2) << r.out;
}

TEST_F(GpuLost, AQuietXidWatchPasses) {
  use_topology(json::object());
  RunHealthMonitor monitor(record_.gpus, GPUQUAL_FAKE_NVML);
  monitor.start("");
  const CheckResult xid = monitor.stop(shipped());
  EXPECT_EQ(xid.status, Status::pass) << xid.reason;
  record_.checks.push_back(xid);
  EXPECT_EQ(compare_record().code, 0);
}

// A record of a gpuqual before gpu.lost: NVML's GPU_IS_LOST written in an info finding of a
// passing health check still fails the node.
TEST_F(GpuLost, AnOlderRecordsLostAnswerInAnInfoFindingFails) {
  for (CheckResult& c : record_.checks) {
    if (c.name != "health") continue;
    c.findings.push_back(
        Finding{"nvml.readings_unavailable", Severity::info, 1,
                "GPU 1 (NVIDIA H200): not read: NVML GPU 1: NVML_ERROR_GPU_IS_LOST: GPU is lost", "", 1.0});
  }
  const CliResult r = compare_record();
  EXPECT_EQ(r.code, 1) << r.out;
}

}  // namespace
}  // namespace gpuqual
