// Per-slice runs (runner/run/device_parts.hpp; docs/mig.md, "Measuring each slice"): which
// children a check runs as on a node with GPUs in MIG mode, what each is shown, how their
// results come back; and, with real processes (gpuqual-testbin's device stand-in in place of
// hbm), that the runner starts one child per MIG device with CUDA_VISIBLE_DEVICES=MIG-<uuid>,
// side by side, and records one merged result that the strict reader accepts.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/base/input_error.hpp"
#include "core/record/record_io.hpp"
#include "record_builders.hpp"
#include "run_fixture.hpp"
#include "runner/run/device_parts.hpp"
#include "runner/run/progress.hpp"
#include "runner/run/run_journal.hpp"
#include "runner/run/stop_signal.hpp"
#include "runner/run/suite_runner.hpp"

namespace gpuqual {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// An H200's GPU instance as NVML lists it: a 1g.18gb spans one memory slice with 16 SMs, a 3g.71gb
// four with 60 (the reader refuses a profile that contradicts its size: core/record/mig_identity.hpp).
MigGpuInstance gpu_instance(unsigned id, const std::string& profile, std::vector<std::string> uuids) {
  const bool three = profile == "3g.71gb";
  MigGpuInstance gi;
  gi.id = id;
  gi.profile = profile;
  gi.memory_bytes = (three ? 70ull : 18ull) << 30;
  gi.placement_size = three ? 4 : 1;
  for (unsigned k = 0; k < uuids.size(); ++k) {
    gi.compute_instances.push_back(MigComputeInstance{k, profile, uuids[k], three ? 60 : 16});
  }
  return gi;
}

// GPU 0 whole; GPU 1 in MIG mode with two 1g.18gb devices; GPU 2 in MIG mode with one 3g.71gb.
RunRecord mixed_node() {
  RunRecord r = testing::make_record(3);
  MigState one;
  one.current = one.pending = true;
  one.gpu_instances = {gpu_instance(1, "1g.18gb", {"MIG-aaaa"}), gpu_instance(2, "1g.18gb", {"MIG-bbbb"})};
  r.gpus[1].mig = one;
  MigState three;
  three.current = three.pending = true;
  three.gpu_instances = {gpu_instance(1, "3g.71gb", {"MIG-cccc"})};
  r.gpus[2].mig = three;
  return r;
}

TEST(MigDeviceParts, NoMigGpuMeansOneRunAsEver) {
  const RunRecord r = testing::make_record(4);
  EXPECT_TRUE(device_parts("hbm", {0, 1, 2, 3}, r.gpus, "h200-sxm-141gb").empty());
}

TEST(MigDeviceParts, ChecksWithoutCudaDevicesAreNotSplit) {
  const RunRecord r = mixed_node();
  for (const char* check : {"health", "mig", "stack", "compat", "gpu_sharing"}) {
    EXPECT_TRUE(device_parts(check, {0, 1, 2}, r.gpus, "h200-sxm-141gb").empty()) << check;
  }
}

TEST(MigDeviceParts, OnePartPerMigDeviceAndOneForTheWholeGpus) {
  const RunRecord r = mixed_node();
  for (const char* check : {"hbm", "gemm", "memtest", "pcie", "burnin"}) {
    const auto parts = device_parts(check, {0, 1, 2}, r.gpus, "h200-sxm-141gb");
    ASSERT_EQ(parts.size(), 4u) << check;
    EXPECT_EQ(parts[0].visible_devices, r.gpus[0].uuid);
    EXPECT_THAT(parts[0].record_gpus, ElementsAre(0));
    EXPECT_EQ(parts[0].mig_device, "");
    EXPECT_EQ(parts[0].hardware_class, "h200-sxm-141gb");
    EXPECT_EQ(parts[1].visible_devices, "MIG-aaaa");
    EXPECT_THAT(parts[1].record_gpus, ElementsAre(1));
    EXPECT_EQ(parts[1].hardware_class, "h200-sxm-141gb-mig-1g.18gb");
    EXPECT_EQ(parts[2].mig_device, "MIG-bbbb");
    EXPECT_EQ(parts[3].mig_device, "MIG-cccc");
    EXPECT_THAT(parts[3].record_gpus, ElementsAre(2));
    EXPECT_EQ(parts[3].hardware_class, "h200-sxm-141gb-mig-3g.71gb");
  }
}

TEST(MigDeviceParts, BetweenGpuChecksRunAmongTheWholeGpusOnly) {
  RunRecord r = mixed_node();
  r.gpus.push_back(testing::make_gpu(3));
  const auto parts = device_parts("p2p", {0, 1, 2, 3}, r.gpus, "h200-sxm-141gb");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].visible_devices, r.gpus[0].uuid + "," + r.gpus[3].uuid);
  EXPECT_THAT(parts[0].record_gpus, ElementsAre(0, 3));
  // Every GPU in MIG mode: no part, so the check runs once and skips as mig_instance itself.
  EXPECT_TRUE(device_parts("nccl_allreduce", {1, 2}, r.gpus, "h200-sxm-141gb").empty());
}

TEST(MigDeviceParts, OnlyTheSelectedGpusAreSplit) {
  const RunRecord r = mixed_node();
  const auto parts = device_parts("hbm", {2}, r.gpus, "h200-sxm-141gb");
  ASSERT_EQ(parts.size(), 1u);
  EXPECT_EQ(parts[0].mig_device, "MIG-cccc");
  EXPECT_TRUE(device_parts("hbm", {0}, r.gpus, "h200-sxm-141gb").empty());
}

TEST(MigDeviceParts, AWholeGpuWithoutUuidCannotBeAddressed) {
  RunRecord r = mixed_node();
  r.gpus[0].uuid.clear();
  const auto parts = device_parts("hbm", {0, 1, 2}, r.gpus, "h200-sxm-141gb");
  ASSERT_FALSE(parts.empty());
  EXPECT_THAT(parts[0].problem, HasSubstr("GPU 0 has no UUID"));
  EXPECT_TRUE(parts[1].problem.empty());
}

TEST(MigDeviceParts, TheChildIsShownItsDeviceAsGpuZero) {
  const RunRecord r = mixed_node();
  const auto parts = device_parts("hbm", {0, 1, 2}, r.gpus, "h200-sxm-141gb");
  const RunRecord view = part_inventory(r, parts[2]);
  ASSERT_EQ(view.gpus.size(), 1u);
  EXPECT_EQ(view.gpus[0].index, 0);
  EXPECT_EQ(view.gpus[0].uuid, "MIG-bbbb");
  EXPECT_EQ(view.gpus[0].memory_bytes, 18ull << 30);
  EXPECT_EQ(view.gpus[0].sm_count, 16);
  EXPECT_FALSE(view.gpus[0].mig.has_value());
  EXPECT_EQ(view.hardware_class.slug, "h200-sxm-141gb");  // the slice's class is the task's
  EXPECT_EQ(view.hardware_class.gpu_count, 1);
  EXPECT_TRUE(view.hardware_class.overridden);
  EXPECT_EQ(part_inventory(r, parts[0]).hardware_class.gpu_count, 1);
  EXPECT_FALSE(part_inventory(r, parts[0]).hardware_class.overridden);
  EXPECT_TRUE(view.checks.empty());
}

CheckResult one_metric(int gpu, Status status = Status::pass, const std::string& reason = "") {
  CheckResult c;
  c.name = "hbm";
  c.status = status;
  c.reason = reason;
  c.started_at = "2026-12-04T10:00:0" + std::to_string(gpu) + "Z";
  c.duration_s = 1 + gpu;
  Metric m;
  m.name = "hbm.copy.gbps";
  m.gpu = gpu;
  c.metrics.push_back(m);
  c.attributes["hbm.size_bytes"] = "1024";
  return c;
}

TEST(MigDeviceParts, ResultsComeBackOnTheRecordsGpusTaggedWithTheirSlice) {
  const RunRecord r = mixed_node();
  const auto parts = device_parts("hbm", {0, 1, 2}, r.gpus, "h200-sxm-141gb");
  CheckResult slice = one_metric(0);
  map_part_result(slice, parts[3], "x.json");
  EXPECT_EQ(slice.metrics[0].gpu, 2);
  EXPECT_EQ(slice.metrics[0].mig_device, "MIG-cccc");
  CheckResult whole = one_metric(0);
  map_part_result(whole, parts[0], "x.json");
  EXPECT_EQ(whole.metrics[0].gpu, 0);
  EXPECT_EQ(whole.metrics[0].mig_device, "");
  // A device the child was not given is refused, not guessed.
  CheckResult stray = one_metric(1);
  EXPECT_THROW(map_part_result(stray, parts[3], "x.json"), InputError);
}

TEST(MigDeviceParts, MergedResultIsTheWorstWithEachPartNamed) {
  const RunRecord r = mixed_node();
  const auto parts = device_parts("hbm", {0, 1, 2}, r.gpus, "h200-sxm-141gb");
  std::vector<CheckResult> results{one_metric(0), one_metric(0), one_metric(0, Status::fail, "copy too slow"),
                                   one_metric(0)};
  for (std::size_t k = 0; k < parts.size(); ++k) map_part_result(results[k], parts[k], "x.json");
  const CheckResult m = merge_part_results("hbm", parts, results);
  EXPECT_EQ(m.status, Status::fail);
  EXPECT_EQ(m.reason, "GPU 1 MIG-bbbb (1g.18gb): copy too slow");
  ASSERT_EQ(m.metrics.size(), 4u);
  EXPECT_EQ(m.metrics[2].mig_device, "MIG-bbbb");
  // Each slice is one per-GPU row; the whole GPUs' part keeps its own (none here).
  ASSERT_EQ(m.per_gpu.size(), 3u);
  EXPECT_EQ(m.per_gpu[1].mig_device, "MIG-bbbb");
  EXPECT_EQ(m.per_gpu[1].status, Status::fail);
  EXPECT_EQ(m.attributes.at("hbm.size_bytes"), "1024");
  EXPECT_EQ(m.attributes.at("MIG-cccc/hbm.size_bytes"), "1024");
  EXPECT_EQ(m.started_at, "2026-12-04T10:00:00Z");
  EXPECT_DOUBLE_EQ(m.duration_s, 1);
  // Not-applicable only when every part says so with the same code.
  std::vector<CheckResult> skips(2, unmeasurable("hbm", Status::skip, "n/a", "single_gpu"));
  const std::vector<DevicePart> two(parts.begin(), parts.begin() + 2);
  EXPECT_EQ(merge_part_results("hbm", two, skips).reason_code, "single_gpu");
  skips[1].reason_code.clear();
  EXPECT_EQ(merge_part_results("hbm", two, skips).reason_code, "");
}

// Real processes: the runner, gpuqual-testbin's children, the stand-in in place of hbm.
class MigSliceRuns : public testing::RunFixture {
 protected:
  RunRecord run_hbm(const RunRecord& node, const nlohmann::json& params) {
    ::setenv("GPUQUAL_TESTBIN_STAND_IN", "hbm", 1);
    RunRecord planned = node;
    CheckResult c;
    c.name = "hbm";
    planned.checks = {c};
    RunJournal journal(path("record.json"), planned);
    journal.open();
    std::FILE* sink = std::fopen("/dev/null", "w");
    ProgressDisplay display(sink, false, Verbosity::quiet);
    StopState stop;
    RunnerSettings settings;
    settings.exe = GPUQUAL_TESTBIN;
    settings.work_dir = dir_;
    settings.side_dir = path("side");
    for (const GpuInfo& g : node.gpus) settings.gpus.push_back(g.index);
    SuiteCheck check{"hbm", params, 10, 60};
    run_checks({check}, journal, display, stop, settings);
    journal.close(true, "2026-12-04T10:01:00Z");
    std::fclose(sink);
    ::unsetenv("GPUQUAL_TESTBIN_STAND_IN");
    return record("record.json");  // the strict reader: mig_device must be valid
  }
};

TEST_F(MigSliceRuns, EachMigDeviceRunsInItsOwnChildSideBySide) {
  const RunRecord node = mixed_node();
  const std::string log = path("runs.log");
  const RunRecord rec = run_hbm(node, {{"seconds", 0.5}, {"log_file", log}});
  ASSERT_EQ(rec.checks.size(), 1u);
  const CheckResult& hbm = rec.checks[0];
  EXPECT_EQ(hbm.status, Status::pass) << hbm.reason;
  EXPECT_EQ(hbm.attributes.at("visible_devices"), node.gpus[0].uuid);
  EXPECT_EQ(hbm.attributes.at("MIG-aaaa/visible_devices"), "MIG-aaaa");
  EXPECT_EQ(hbm.attributes.at("MIG-cccc/visible_devices"), "MIG-cccc");
  EXPECT_EQ(hbm.attributes.at("MIG-cccc/hardware_class"), "h200-sxm-141gb-mig-3g.71gb");
  EXPECT_EQ(hbm.attributes.at("MIG-bbbb/node_gpus"), "0=MIG-bbbb");
  ASSERT_EQ(hbm.metrics.size(), 4u);
  std::vector<std::pair<int, std::string>> seen;
  for (const Metric& m : hbm.metrics) seen.emplace_back(*m.gpu, m.mig_device);
  EXPECT_THAT(
      seen,
      ElementsAre(std::pair<int, std::string>{0, ""}, std::pair<int, std::string>{1, "MIG-aaaa"},
                  std::pair<int, std::string>{1, "MIG-bbbb"}, std::pair<int, std::string>{2, "MIG-cccc"}));
  // Side by side: every run started before any other ended (each stays busy 0.5 s).
  std::ifstream in(log);
  std::string visible;
  double start = 0, end = 0, latest_start = 0, earliest_end = 1e300;
  int runs = 0;
  while (in >> visible >> start >> end) {
    ++runs;
    latest_start = std::max(latest_start, start);
    earliest_end = std::min(earliest_end, end);
  }
  EXPECT_EQ(runs, 4);
  EXPECT_LT(latest_start, earliest_end);
}

TEST_F(MigSliceRuns, OneFailingSliceFailsTheCheckAndIsNamed) {
  const RunRecord rec = run_hbm(mixed_node(), {{"seconds", 0.05}, {"fail_on", "MIG-bbbb"}});
  const CheckResult& hbm = rec.checks.at(0);
  EXPECT_EQ(hbm.status, Status::fail);
  EXPECT_THAT(hbm.reason, HasSubstr("GPU 1 MIG-bbbb (1g.18gb): planted failure on MIG-bbbb"));
  int failed_slices = 0;
  for (const GpuCheckStatus& s : hbm.per_gpu)
    failed_slices += s.status == Status::fail && s.mig_device == "MIG-bbbb";
  EXPECT_EQ(failed_slices, 1);
}

TEST_F(MigSliceRuns, ANodeWithoutMigRunsTheCheckOnceUnchanged) {
  const RunRecord rec = run_hbm(testing::make_record(2), {{"seconds", 0.05}});
  const CheckResult& hbm = rec.checks.at(0);
  EXPECT_EQ(hbm.status, Status::pass) << hbm.reason;
  EXPECT_EQ(hbm.attributes.at("visible_devices"),
            std::getenv("CUDA_VISIBLE_DEVICES") ? std::getenv("CUDA_VISIBLE_DEVICES") : "(unset)");
  ASSERT_EQ(hbm.metrics.size(), 2u);
  EXPECT_EQ(hbm.metrics[1].gpu, 1);
  EXPECT_EQ(hbm.metrics[1].mig_device, "");
  EXPECT_TRUE(hbm.per_gpu.empty());
}

}  // namespace
}  // namespace gpuqual
