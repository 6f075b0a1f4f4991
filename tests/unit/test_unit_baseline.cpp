// The one resolver of which class judges which unit of a record (core/baseline/unit_baseline.hpp):
// whole GPUs and the node by the record's class, a vGPU likewise, a MIG slice by its GPU
// instance's profile, a compute instance narrower than its GPU instance by its own profile; each
// class looked up once, the record's own class from the baseline the command resolved.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "core/baseline/unit_baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/record/mig_class.hpp"
#include "record_builders.hpp"

namespace gpuqual {
namespace {

// GPU 0 whole, GPU 1 a vGPU, GPU 2 in MIG mode: a 1g.18gb slice and a 3g.71gb GPU instance split
// into two 1c.3g.71gb compute instances.
RunRecord units_record() {
  RunRecord r = testing::make_record(3);
  r.gpus[1].virtualization_mode = "vgpu";
  MigState mig;
  mig.current = mig.pending = true;
  mig.gpu_instances.push_back(
      MigGpuInstance{1, "1g.18gb", 0, 1, 18ull << 30, {{0, "1g.18gb", "MIG-slice", 16}}});
  mig.gpu_instances.push_back(
      MigGpuInstance{2,
                     "3g.71gb",
                     4,
                     4,
                     71ull << 30,
                     {{0, "1c.3g.71gb", "MIG-ci-0", 20}, {1, "1c.3g.71gb", "MIG-ci-1", 20}}});
  r.gpus[2].mig = mig;
  return r;
}

TEST(UnitBaseline, EachUnitIsJudgedByItsOwnClass) {
  const RunRecord r = units_record();
  EXPECT_EQ(judged_unit(r, std::nullopt, "").kind, UnitKind::whole_gpu);
  EXPECT_EQ(judged_unit(r, std::nullopt, "").slug, "h200-sxm-141gb");
  EXPECT_EQ(judged_unit(r, 0, "").kind, UnitKind::whole_gpu);
  EXPECT_EQ(judged_unit(r, 1, "").kind, UnitKind::vgpu);
  EXPECT_EQ(judged_unit(r, 1, "").slug, "h200-sxm-141gb");
  // The parent of MIG devices is read as a whole GPU (health reads it once, docs/mig.md).
  EXPECT_EQ(judged_unit(r, 2, "").slug, "h200-sxm-141gb");
  EXPECT_EQ(judged_unit(r, 2, "MIG-slice").kind, UnitKind::mig_slice);
  EXPECT_EQ(judged_unit(r, 2, "MIG-slice").slug, "h200-sxm-141gb-mig-1g.18gb");
  EXPECT_EQ(judged_unit(r, 2, "MIG-ci-1").kind, UnitKind::mig_compute_instance);
  EXPECT_EQ(judged_unit(r, 2, "MIG-ci-1").slug, "h200-sxm-141gb-mig-1c.3g.71gb");
  EXPECT_EQ(judged_unit(r, 2, "MIG-absent").slug, "");
  EXPECT_TRUE(judged_by_record_class(r, 1, ""));
  EXPECT_FALSE(judged_by_record_class(r, 2, "MIG-slice"));
}

TEST(UnitBaseline, ComputeInstanceClassesAreValidSlugs) {
  EXPECT_TRUE(is_mig_compute_profile_name("1c.3g.40gb"));
  EXPECT_FALSE(is_mig_compute_profile_name("3g.40gb"));
  EXPECT_FALSE(is_mig_compute_profile_name("c.3g.40gb"));
  EXPECT_TRUE(is_mig_class_slug("h100-sxm-80gb-mig-1c.3g.40gb"));
  EXPECT_FALSE(is_mig_class_slug("h100-sxm-80gb-mig-1c.3g"));
  const std::vector<std::string> classes = qualification_classes(units_record().gpus, "h200-sxm-141gb");
  EXPECT_EQ(classes, (std::vector<std::string>{"h200-sxm-141gb", "h200-sxm-141gb-mig-1g.18gb",
                                               "h200-sxm-141gb-mig-1c.3g.71gb"}));
}

// A source that counts its lookups.
class CountingSource : public BaselineSource {
 public:
  const Baseline* for_class(const std::string& slug) override {
    ++asked[slug];
    return slug == slice.hardware_class ? &slice : nullptr;
  }
  Baseline slice{.hardware_class = "h200-sxm-141gb-mig-1g.18gb"};
  std::map<std::string, int> asked;
};

TEST(UnitBaseline, TheRecordsClassIsTheCommandsBaselineAndOthersComeFromTheSourceOnce) {
  const RunRecord r = units_record();
  const Baseline own{.hardware_class = "h200-sxm-141gb"};
  CountingSource source;
  UnitBaselines units(r, &own, &source);
  EXPECT_EQ(units.for_unit(judged_unit(r, 0, "")), &own);
  EXPECT_EQ(units.for_unit(judged_unit(r, 2, "MIG-slice")), &source.slice);
  EXPECT_EQ(units.for_unit(judged_unit(r, 2, "MIG-ci-0")), nullptr);
  EXPECT_EQ(units.for_unit(judged_unit(r, 2, "MIG-ci-1")), nullptr);
  EXPECT_EQ(source.asked.count("h200-sxm-141gb"), 0u);  // the command's baseline, not the source's
  EXPECT_EQ(source.asked["h200-sxm-141gb-mig-1c.3g.71gb"], 1);
  EXPECT_EQ(units.classes_without_baseline(), std::vector<std::string>{"h200-sxm-141gb-mig-1c.3g.71gb"});
  UnitBaselines nowhere(r, &own, nullptr);
  EXPECT_EQ(nowhere.for_class("h200-sxm-141gb-mig-1g.18gb"), nullptr);
}

// A compute instance is never judged against its whole GPU instance's figures: with only the
// shipped floors (none for compute-instance classes) its figures are unjudged and the verdict is
// inconclusive, where the 3g.71gb floor would have failed a healthy third of the slice.
TEST(UnitBaseline, AComputeInstanceIsNeverJudgedAgainstTheWholeSlice) {
  RunRecord r = units_record();
  CheckResult gemm;
  gemm.name = "gemm";
  gemm.status = Status::pass;
  Metric m = testing::make_metric("gemm.bf16.tflops", "TFLOP/s", {110, 111, 112}, 2);
  m.mig_device = "MIG-ci-0";
  gemm.metrics.push_back(m);
  r.checks.push_back(gemm);
  const std::string dir = std::string(GPUQUAL_SOURCE_DIR) + "/baselines";
  AutoBaselines floors(dir);
  const Verdict v = compare_with_baselines(r, floors, CompareOptions{});
  for (const MetricRow& row : v.metrics) {
    if (row.mig_device != "MIG-ci-0") continue;
    EXPECT_EQ(row.status, Status::skip) << row.reason;
    EXPECT_EQ(row.reason, "no baseline for class h200-sxm-141gb-mig-1c.3g.71gb");
  }
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_TRUE(std::any_of(v.reasons.begin(), v.reasons.end(), [](const std::string& why) {
    return why == "no baseline for MIG class h200-sxm-141gb-mig-1c.3g.71gb: its MIG devices are not judged";
  })) << v.summary;
}

}  // namespace
}  // namespace gpuqual
