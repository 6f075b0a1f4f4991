// Judging MIG devices (docs/mig.md, "Measuring each slice"; core/judge/compare_slices.hpp): a
// per-slice metric is judged against its slice class's baseline, never the whole GPU's; each
// MIG device answers what its class requires; no baseline for a slice class, or a GPU in MIG
// mode with no MIG device, is inconclusive. And the record: `mig_device` is read, written and
// refused where it names no MIG device of its GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/baseline/class_baselines.hpp"
#include "core/fleet/baseline_build.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_reader.hpp"
#include "core/verdict/verdict_json.hpp"
#include "record_builders.hpp"
#include "runner/reporters/reporters.hpp"

namespace gpuqual {
namespace {

using ::testing::HasSubstr;
namespace fs = std::filesystem;

const std::string kBaselines = (fs::path(GPUQUAL_SOURCE_DIR) / "baselines").string();

Baseline parent_floor() { return load_baseline(kBaselines + "/floors/h200-sxm-141gb.yaml"); }

Metric slice_metric(const std::string& name, const std::string& unit, double v, int gpu,
                    const std::string& mig) {
  Metric m = testing::make_metric(name, unit, {v, v, v, v, v}, gpu);
  m.mig_device = mig;
  return m;
}

CheckResult passed(const std::string& name) {
  CheckResult c;
  c.name = name;
  c.status = Status::pass;
  return c;
}

// Two H200s: GPU 0 whole, GPU 1 in MIG mode as two 1g.18gb devices, each measured as the
// runner measures a slice, at figures above the derived 1g.18gb floors (GEMM 42.4 TFLOP/s at
// 4096, memory 360 GB/s) and far below the whole GPU's.
RunRecord mig_node() {
  RunRecord r = testing::make_record(2);
  r.node.k8s_labels.clear();
  r.node.pci_gpus = std::vector<PciGpu>{};
  for (const auto& g : r.gpus)
    r.node.pci_gpus->push_back(PciGpu{g.pci_bus_id.substr(4), "0x2335", "0x030200", "nvidia"});
  MigState mig;
  mig.current = mig.pending = true;
  for (unsigned k = 0; k < 2; ++k) {
    MigGpuInstance gi;
    gi.id = k + 1;
    gi.profile = "1g.18gb";
    gi.memory_bytes = 18ull << 30;
    gi.placement_size = 1;
    gi.compute_instances.push_back(MigComputeInstance{0, "1g.18gb", k == 0 ? "MIG-a" : "MIG-b", 16});
    mig.gpu_instances.push_back(gi);
  }
  r.gpus[1].mig = mig;
  CheckResult health = passed("health");
  for (int g : {0, 1}) health.per_gpu.push_back(GpuCheckStatus{g, Status::pass, "", ""});
  CheckResult gemm = passed("gemm"), hbm = passed("hbm"), pcie = passed("pcie");
  gemm.metrics.push_back(testing::make_metric("gemm.bf16.n4096.tflops", "TFLOP/s", {700, 700, 700}, 0));
  hbm.metrics.push_back(testing::make_metric("hbm.copy.gbps", "GB/s", {4300, 4300, 4300}, 0));
  pcie.metrics.push_back(testing::make_metric("pcie.h2d.gbps", "GB/s", {55, 55, 55}, 0));
  for (const char* dev : {"MIG-a", "MIG-b"}) {
    gemm.metrics.push_back(slice_metric("gemm.bf16.n4096.tflops", "TFLOP/s", 100, 1, dev));
    hbm.metrics.push_back(slice_metric("hbm.copy.gbps", "GB/s", 500, 1, dev));
    pcie.metrics.push_back(slice_metric("pcie.h2d.gbps", "GB/s", 50, 1, dev));
  }
  r.checks = {health, gemm, hbm, pcie};
  return r;
}

std::string reasons(const Verdict& v) {
  std::string out = v.summary;
  for (const auto& why : v.reasons) out += "\n  " + why;
  return out;
}

bool has_reason(const Verdict& v, const std::string& text) {
  for (const auto& why : v.reasons) {
    if (why.find(text) != std::string::npos) return true;
  }
  return false;
}

Verdict judge(const RunRecord& r, bool with_slices = true) {
  const Baseline parent = parent_floor();
  AutoBaselines slices(kBaselines);
  CompareOptions o;
  if (with_slices) o.unit_baselines = &slices;
  return compare_record(r, &parent, o);
}

TEST(MigCompare, SlicesAreJudgedByTheirClassAndTheNodePasses) {
  const Verdict v = judge(mig_node());
  EXPECT_EQ(v.outcome, Outcome::pass) << reasons(v);
  int judged = 0, unjudged = 0;
  for (const MetricRow& m : v.metrics) {
    if (m.mig_device.empty()) continue;
    EXPECT_EQ(m.gpu, 1);
    if (!m.observed) {
      // The class's optional metrics this record did not measure (gemm.fp64.tflops, ...).
      EXPECT_EQ(m.status, Status::skip);
      EXPECT_THAT(m.reason, HasSubstr("optional metric of class h200-sxm-141gb-mig-1g.18gb not measured"));
      continue;
    }
    if (m.metric == "pcie.h2d.gbps") {
      // No per-slice PCIe floor (a slice shares its parent's link): shown, required to run, not judged.
      EXPECT_EQ(m.status, Status::skip);
      EXPECT_EQ(m.reason, "not in the baseline of class h200-sxm-141gb-mig-1g.18gb");
      ++unjudged;
      continue;
    }
    ++judged;
    EXPECT_EQ(m.status, Status::pass) << m.metric << " " << m.reason;
    ASSERT_TRUE(m.expected.has_value());
    EXPECT_LT(*m.expected, 1000);  // the slice's derived expectation, not the whole GPU's
  }
  EXPECT_EQ(judged, 4);
  EXPECT_EQ(unjudged, 2);
}

// A check run once per MIG device reports each device's status; one slice's pass never stands
// for another that could not measure (a memtest no floor requires, skipped without a code on one
// slice): the verdict is inconclusive, and each slice has its own row, named by its device.
TEST(MigCompare, OneSlicesPassNeverHidesAnotherSlicesSkip) {
  RunRecord r = mig_node();
  CheckResult memtest = passed("memtest");
  memtest.status = Status::skip;
  memtest.reason = "GPU 1 MIG-b (1g.18gb): CUDA out of memory";
  memtest.per_gpu = {GpuCheckStatus{0, Status::pass, "", ""},
                     GpuCheckStatus{1, Status::pass, "", "", "MIG-a"},
                     GpuCheckStatus{1, Status::skip, "CUDA out of memory", "", "MIG-b"}};
  r.checks.push_back(memtest);
  const Verdict v = judge(r);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  int slice_rows = 0;
  for (const CheckRow& c : v.checks) {
    if (c.check != "memtest" || c.mig_device.empty()) continue;
    ++slice_rows;
    EXPECT_EQ(c.gpu, 1);
    EXPECT_EQ(c.status, c.mig_device == "MIG-b" ? Status::skip : Status::pass) << c.mig_device;
  }
  EXPECT_EQ(slice_rows, 2);
  // JUnit: one testcase per slice, each named by its device.
  const std::string junit = render_junit(v);
  EXPECT_THAT(junit, HasSubstr("name=\"memtest gpu 1 MIG-a\""));
  EXPECT_THAT(junit, HasSubstr("name=\"memtest gpu 1 MIG-b\""));
  // The verdict's JSON keeps each row's device and reads it back.
  const Verdict back = verdict_from_json(to_json(v), "v.json");
  EXPECT_EQ(to_json(back), to_json(v));
}

TEST(MigCompare, ASlowSliceFailsAndIsNamed) {
  RunRecord r = mig_node();
  for (Metric& m : r.checks[2].metrics) {
    if (m.mig_device == "MIG-b") m = slice_metric("hbm.copy.gbps", "GB/s", 200, 1, "MIG-b");
  }
  const Verdict v = judge(r);
  EXPECT_EQ(v.outcome, Outcome::fail) << reasons(v);
  bool named = false;
  for (const MetricRow& m : v.metrics) named = named || (m.mig_device == "MIG-b" && m.status == Status::fail);
  EXPECT_TRUE(named);
}

TEST(MigCompare, WithoutSliceBaselinesNothingPasses) {
  const Verdict v = judge(mig_node(), /*with_slices=*/false);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "no baseline for MIG class h200-sxm-141gb-mig-1g.18gb")) << reasons(v);
}

TEST(MigCompare, AnUnmeasuredSliceIsInconclusive) {
  RunRecord r = mig_node();
  for (CheckResult& c : r.checks)
    std::erase_if(c.metrics, [](const Metric& m) { return m.mig_device == "MIG-b"; });
  const Verdict v = judge(r);
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << reasons(v);
  EXPECT_TRUE(has_reason(v, "gemm on MIG device MIG-b")) << reasons(v);
  EXPECT_TRUE(has_reason(v, "pcie on MIG device MIG-b")) << reasons(v);
}

TEST(MigCompare, AGpuInMigModeWithNoMigDeviceIsInconclusive) {
  RunRecord r = mig_node();
  r.gpus[1].mig->gpu_instances.clear();
  for (CheckResult& c : r.checks)
    std::erase_if(c.metrics, [](const Metric& m) { return !m.mig_device.empty(); });
  const Verdict v = judge(r);
  EXPECT_NE(v.outcome, Outcome::pass) << reasons(v);
  EXPECT_TRUE(has_reason(v, "GPU 1 is in MIG mode with no MIG device")) << reasons(v);
}

TEST(MigCompare, TheWholeGpusFloorStillJudgesTheWholeGpu) {
  RunRecord r = mig_node();
  r.checks[2].metrics[0] = testing::make_metric("hbm.copy.gbps", "GB/s", {1000, 1000, 1000}, 0);
  EXPECT_EQ(judge(r).outcome, Outcome::fail);
}

TEST(MigCompare, TheVerdictCarriesTheMigDevice) {
  const Verdict v = judge(mig_node());
  const std::string text = to_json(v).dump();
  EXPECT_THAT(text, HasSubstr("\"mig_device\":\"MIG-a\""));
  const Verdict back = verdict_from_json(to_json(v), "v.json");
  int tagged = 0, before = 0;
  for (const MetricRow& m : back.metrics) tagged += !m.mig_device.empty();
  for (const MetricRow& m : v.metrics) before += !m.mig_device.empty();
  EXPECT_GE(tagged, 6);
  EXPECT_EQ(tagged, before);
}

TEST(MigCompare, ReportsTellTheSlicesOfAGpuApart) {
  const Verdict v = judge(mig_node());
  EXPECT_THAT(render_table(v, 200), HasSubstr("1 MIG-a"));
  EXPECT_THAT(render_markdown(v), HasSubstr("1 MIG\\-b"));  // Markdown escapes the dash
  // One series per slice: without the label the two slices of GPU 1 would be one series.
  const std::string prom = render_prometheus(v);
  EXPECT_THAT(prom, HasSubstr("gpu=\"1\",unit=\"GB/s\",mig_device=\"MIG-a\"} 500"));
  EXPECT_THAT(prom, HasSubstr("gpu=\"1\",unit=\"GB/s\",mig_device=\"MIG-b\"} 500"));
}

// The MIG manager re-creates the instances after an upgrade: new UUIDs, same places. diff
// matches each slice by its place on the GPU and names it by its new UUID.
TEST(MigDiff, SlicesAreMatchedByTheirPlaceNotTheirUuid) {
  const RunRecord before = mig_node();
  RunRecord after = mig_node();
  auto rename = [](std::string& uuid) { uuid = uuid == "MIG-a" ? "MIG-new-a" : "MIG-new-b"; };
  for (MigGpuInstance& gi : after.gpus[1].mig->gpu_instances) {
    gi.placement_start = gi.id;  // distinct places, the same in both records
    for (MigComputeInstance& ci : gi.compute_instances) rename(ci.uuid);
  }
  RunRecord placed = before;
  for (MigGpuInstance& gi : placed.gpus[1].mig->gpu_instances) gi.placement_start = gi.id;
  for (CheckResult& c : after.checks) {
    for (Metric& m : c.metrics) {
      if (!m.mig_device.empty()) rename(m.mig_device);
    }
  }
  const Verdict v = diff_records(placed, after, DiffOptions{});
  int slices = 0;
  for (const MetricRow& m : v.metrics) {
    if (m.mig_device.empty() || !m.observed) continue;
    ++slices;
    EXPECT_EQ(m.status, Status::pass) << m.metric << " " << m.reason;
    EXPECT_THAT(m.mig_device, HasSubstr("MIG-new-"));
  }
  EXPECT_EQ(slices, 6);
  // A slice gone from its place is lost, not matched to another one.
  for (CheckResult& c : after.checks) {
    std::erase_if(c.metrics, [](const Metric& m) { return m.mig_device == "MIG-new-b"; });
  }
  const Verdict lost = diff_records(placed, after, DiffOptions{});
  int lost_rows = 0;
  for (const MetricRow& m : lost.metrics) lost_rows += m.mig_device == "MIG-b" && m.status == Status::fail;
  EXPECT_EQ(lost_rows, 3);
}

// Fleet-built baselines work by slug for slices as for whole GPUs (docs/mig.md, "Classes and
// floors"): a MIG node's records are of its whole GPUs' class and of one class per profile, and
// each class's baseline holds only its own figures.
void scale(Metric& m, double f) {
  for (double& v : m.samples) v *= f;
  m.median *= f;
  m.min *= f;
  m.max *= f;
}

std::vector<RunRecord> mig_fleet() {
  std::vector<RunRecord> out;
  for (int n = 0; n < 3; ++n) {
    RunRecord r = mig_node();
    r.node.hostname = "node-" + std::to_string(n);
    r.run_id = "run-" + std::to_string(n);
    for (CheckResult& c : r.checks) {
      for (Metric& m : c.metrics) scale(m, 1.0 + 0.002 * n);
    }
    out.push_back(std::move(r));
  }
  return out;
}

BaselineBuildResult build(const std::vector<RunRecord>& records, const std::string& cls) {
  BaselineBuildOptions o;
  o.hardware_class = cls;
  o.created = "2026-12-05";
  BaselineBuilder b(o);
  for (std::size_t i = 0; i < records.size(); ++i) b.add(records[i], "r" + std::to_string(i) + ".json");
  return b.finish();
}

const MetricExpectation* expectation(const Baseline& b, const std::string& name) {
  for (const MetricExpectation& e : b.metrics) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

TEST(MigBaselineBuild, ASliceClassIsBuiltFromItsMigDevicesOnly) {
  const BaselineBuildResult res = build(mig_fleet(), "h200-sxm-141gb-mig-1g.18gb");
  const Baseline& b = res.baseline;
  EXPECT_EQ(b.hardware_class, "h200-sxm-141gb-mig-1g.18gb");
  EXPECT_EQ(res.included.size(), 3u);
  ASSERT_NE(expectation(b, "gemm.bf16.n4096.tflops"), nullptr);
  EXPECT_NEAR(expectation(b, "gemm.bf16.n4096.tflops")->expected, 100.2, 0.01);  // never the whole GPU's 700
  EXPECT_NEAR(expectation(b, "hbm.copy.gbps")->expected, 501, 0.01);
  EXPECT_NEAR(expectation(b, "pcie.h2d.gbps")->expected, 50.1, 0.01);
  EXPECT_EQ(b.metrics.size(), 3u);
  for (const char* check : {"gemm", "hbm", "pcie"}) {
    ASSERT_TRUE(b.checks.count(check)) << check;
    EXPECT_TRUE(b.checks.at(check).required && b.checks.at(check).every_gpu) << check;
  }
  EXPECT_FALSE(b.checks.count("health"));  // judged per parent GPU, by the whole GPU's class
  EXPECT_FALSE(b.gpu_count.has_value());   // the MIG layout is the mig check's to judge
}

TEST(MigBaselineBuild, TheWholeGpusClassKeepsOnlyTheWholeGpusFigures) {
  const Baseline b = build(mig_fleet(), "h200-sxm-141gb").baseline;
  ASSERT_NE(expectation(b, "gemm.bf16.n4096.tflops"), nullptr);
  EXPECT_NEAR(expectation(b, "gemm.bf16.n4096.tflops")->expected, 701.4, 0.01);
  EXPECT_NEAR(expectation(b, "hbm.copy.gbps")->expected, 4308.6, 0.01);
  EXPECT_EQ(b.gpu_count, 2);
}

TEST(MigBaselineBuild, RecordsOfSeveralClassesNeedAClass) {
  try {
    build(mig_fleet(), "");
    FAIL() << "built one baseline from a whole GPU and its slices";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("h200-sxm-141gb (3 records)"));
    EXPECT_THAT(e.what(), HasSubstr("h200-sxm-141gb-mig-1g.18gb (3 records)"));
  }
}

TEST(MigBaselineBuild, ARecordOfSlicesAloneSaysNothingOfTheWholeGpu) {
  std::vector<RunRecord> fleet = mig_fleet();
  for (RunRecord& r : fleet) {
    r.gpus[0].mig = r.gpus[1].mig;
    for (MigGpuInstance& gi : r.gpus[0].mig->gpu_instances) {
      for (MigComputeInstance& ci : gi.compute_instances) ci.uuid += "0";
    }
    for (CheckResult& c : r.checks) {
      for (Metric& m : c.metrics) {
        if (m.mig_device.empty()) m.mig_device = "MIG-a0";
      }
    }
  }
  const BaselineBuildResult res = build(fleet, "h200-sxm-141gb");
  EXPECT_TRUE(res.included.empty());
  ASSERT_EQ(res.excluded.size(), 3u);
  EXPECT_EQ(res.excluded[0].reason, "class h200-sxm-141gb-mig-1g.18gb, not h200-sxm-141gb");
}

TEST(MigBaselineBuild, ItsSourceRecordsPassAgainstTheBuiltSliceBaseline) {
  const std::vector<RunRecord> fleet = mig_fleet();
  FixedBaselines slices({build(fleet, "h200-sxm-141gb-mig-1g.18gb").baseline});
  const Baseline parent = build(fleet, "h200-sxm-141gb").baseline;
  CompareOptions o;
  o.unit_baselines = &slices;
  for (const RunRecord& r : fleet) {
    const Verdict v = compare_record(r, &parent, o);
    EXPECT_EQ(v.outcome, Outcome::pass) << reasons(v);
  }
  // A slice 30 % slower than the fleet built fails against it.
  RunRecord slow = fleet[0];
  for (Metric& m : slow.checks[1].metrics) {
    if (m.mig_device == "MIG-b") scale(m, 0.7);
  }
  EXPECT_EQ(compare_record(slow, &parent, o).outcome, Outcome::fail);
}

TEST(MigRecord, MigDeviceIsWrittenAndReadBack) {
  const RunRecord r = mig_node();
  const RunRecord back = StreamingRecordReader().parse(record_to_text(r), "r.json");
  EXPECT_EQ(back.checks[1].metrics[1].mig_device, "MIG-a");
  EXPECT_EQ(back.checks[1].metrics[0].mig_device, "");
}

TEST(MigRecord, AMigDeviceNotOfItsGpuIsRefused) {
  RunRecord r = mig_node();
  r.checks[1].metrics[1].mig_device = "MIG-elsewhere";
  try {
    StreamingRecordReader().parse(record_to_text(r), "r.json");
    FAIL() << "accepted a MIG device its GPU does not have";
  } catch (const InputError& e) {
    EXPECT_THAT(e.what(), HasSubstr("MIG-elsewhere is not a MIG device of GPU 1"));
  }
  r.checks[1].metrics[1].mig_device = "GPU-1234";
  EXPECT_THROW(StreamingRecordReader().parse(record_to_text(r), "r.json"), InputError);
}

}  // namespace
}  // namespace gpuqual
