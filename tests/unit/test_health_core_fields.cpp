// health passes a GPU only on its core readings (core/rules/health_core_fields.hpp): unread is error
// naming the field and NVML's message, a field the architecture lacks is not applicable.
#include <gtest/gtest.h>

#include "core/rules/health_core_fields.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "tests/support/shipped_severity.hpp"

using namespace gpuqual;

namespace {

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

GpuHealthReading hopper() {
  GpuHealthReading g;
  g.index = 0;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-0";
  g.compute_capability = "9.0";
  g.ecc_enabled = true;
  g.ecc_volatile_uncorrected = 0;
  g.ecc_aggregate_uncorrected = 0;
  g.remapped_rows_uncorrectable = 0;
  g.remap_pending = false;
  g.pcie_gen = 5;
  g.pcie_width = 16;
  return g;
}

HealthEvaluation judge(const GpuHealthReading& g, HealthPolicy p = {}) {
  HealthSnapshot s;
  s.nvml_available = true;
  s.gpus.push_back(g);
  return evaluate_health(s, nullptr, p, shipped());
}

}  // namespace

TEST(HealthCoreFields, AllReadPassesAndRetiredPagesAreNotApplicableOnHopper) {
  const auto gaps = core_field_gaps(hopper());
  ASSERT_EQ(gaps.size(), 1u);
  EXPECT_EQ(gaps[0].field, "retired_pages");
  EXPECT_TRUE(gaps[0].not_applicable);
  const HealthEvaluation ev = judge(hopper());
  EXPECT_EQ(ev.status, Status::pass) << ev.reason;
  ASSERT_EQ(ev.not_applicable.size(), 1u);
  EXPECT_NE(ev.not_applicable[0].find("retired_pages: not applicable to compute capability 9.0"),
            std::string::npos);
}

TEST(HealthCoreFields, AnUnreadFieldIsErrorNamingItAndNvmlsCode) {
  GpuHealthReading g = hopper();
  g.remapped_rows_uncorrectable.reset();
  g.remap_pending.reset();
  g.unread.push_back("remapped_rows: NVML_ERROR_UNKNOWN (An internal driver error occurred)");
  const HealthEvaluation ev = judge(g);
  EXPECT_EQ(ev.status, Status::error);
  EXPECT_NE(ev.reason.find("remapped_rows (NVML_ERROR_UNKNOWN"), std::string::npos) << ev.reason;
  ASSERT_EQ(ev.per_gpu.size(), 1u);
  EXPECT_EQ(ev.per_gpu[0].status, Status::error);
  EXPECT_NE(ev.per_gpu[0].reason.find("remapped_rows"), std::string::npos);
}

TEST(HealthCoreFields, EachCoreFieldIsRequired) {
  auto unread = [](void (*drop)(GpuHealthReading&)) {
    GpuHealthReading g = hopper();
    drop(g);
    return judge(g).status;
  };
  EXPECT_EQ(unread([](GpuHealthReading& g) { g.ecc_enabled.reset(); }), Status::error);
  EXPECT_EQ(unread([](GpuHealthReading& g) { g.ecc_volatile_uncorrected.reset(); }), Status::error);
  EXPECT_EQ(unread([](GpuHealthReading& g) { g.ecc_aggregate_uncorrected.reset(); }), Status::error);
  EXPECT_EQ(unread([](GpuHealthReading& g) { g.pcie_gen.reset(); }), Status::error);
  EXPECT_EQ(unread([](GpuHealthReading& g) { g.pcie_width.reset(); }), Status::error);
}

TEST(HealthCoreFields, PreAmpereNeedsRetiredPagesNotRemappedRows) {
  GpuHealthReading g = hopper();
  g.compute_capability = "7.0";
  g.remapped_rows_uncorrectable.reset();
  g.remap_pending.reset();
  EXPECT_EQ(judge(g).status, Status::error);  // no retired pages read
  g.retired_pages_dbe = 0;
  EXPECT_EQ(judge(g).status, Status::pass) << judge(g).reason;
}

TEST(HealthCoreFields, EccOffMakesTheCountsNotApplicableAndTheGpuFails) {
  GpuHealthReading g = hopper();
  g.ecc_enabled = false;
  g.ecc_volatile_uncorrected.reset();
  g.ecc_aggregate_uncorrected.reset();
  const HealthEvaluation ev = judge(g);
  EXPECT_EQ(ev.status, Status::fail);  // ecc.disabled, not "not read"
}

TEST(HealthCoreFields, TheXidWatchOffIsError) {
  HealthPolicy p;
  p.xid_watch_off = "nvmlEventSetCreate: NVML_ERROR_NOT_SUPPORTED";
  const HealthEvaluation ev = judge(hopper(), p);
  EXPECT_EQ(ev.status, Status::error);
  EXPECT_NE(ev.reason.find("Xid watch off: nvmlEventSetCreate"), std::string::npos) << ev.reason;
}

TEST(HealthCoreFields, AFailStillOutranksAnUnreadField) {
  GpuHealthReading g = hopper();
  g.ecc_volatile_uncorrected = 3;
  g.pcie_gen.reset();
  EXPECT_EQ(judge(g).status, Status::fail);
}
