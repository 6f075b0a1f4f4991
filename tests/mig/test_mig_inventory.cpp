// MIG inventory (docs/mig.md, "Inventory"): what the fake NVML's topologies give through the
// inventory's NVML code, what the record writes and the reader reads back, and the failure of a
// pending MIG mode change.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/base/input_error.hpp"
#include "core/record/hardware_class.hpp"
#include "core/record/record_io.hpp"
#include "core/record/record_json.hpp"
#include "core/rules/mig_mode.hpp"
#include "core/verdict/inventory_findings.hpp"
#include "device/nvml/nvml_mig.hpp"
#include "mig_fixtures.hpp"

namespace gpuqual {
namespace {

using mig_test::gpus_from_fake_nvml;
using mig_test::topology;

TEST(MigInventory, EveryGpuSplitIntoSevenOneSliceInstances) {
  std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology("h100-all-1g.json"));
  ASSERT_EQ(gpus.size(), 2u);
  for (const GpuInfo& g : gpus) {
    ASSERT_TRUE(g.mig.has_value());
    EXPECT_TRUE(g.mig->current);
    EXPECT_TRUE(g.mig->pending);
    EXPECT_EQ(g.mig->unread, "");
    ASSERT_EQ(g.mig->gpu_instances.size(), 7u);
    for (unsigned i = 0; i < 7; ++i) {
      const MigGpuInstance& gi = g.mig->gpu_instances[i];
      EXPECT_EQ(gi.profile, "1g.10gb");
      EXPECT_EQ(gi.placement_start, i);
      EXPECT_EQ(gi.placement_size, 1u);
      EXPECT_EQ(gi.memory_bytes, 9984ull << 20);
      ASSERT_EQ(gi.compute_instances.size(), 1u);
      EXPECT_EQ(gi.compute_instances[0].profile, "1g.10gb");
      EXPECT_EQ(gi.compute_instances[0].sm_count, 16);
      EXPECT_EQ(gi.compute_instances[0].uuid.rfind("MIG-", 0), 0u);
    }
  }
  EXPECT_EQ(mig_device_counts(*gpus[0].mig), (std::vector<std::pair<std::string, int>>{{"1g.10gb", 7}}));
}

TEST(MigInventory, MixedProfilesKeepTheirPlacementAndSize) {
  std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology("h100-mixed-profiles.json"));
  ASSERT_EQ(gpus.size(), 2u);
  ASSERT_TRUE(gpus[0].mig);
  const auto& gis = gpus[0].mig->gpu_instances;
  ASSERT_EQ(gis.size(), 4u);
  EXPECT_EQ(gis[0].profile, "3g.40gb");
  EXPECT_EQ(gis[0].placement_start, 0u);
  EXPECT_EQ(gis[0].placement_size, 4u);
  EXPECT_EQ(gis[0].compute_instances.at(0).sm_count, 60);
  EXPECT_EQ(gis[1].profile, "2g.20gb");
  EXPECT_EQ(gis[1].placement_start, 4u);
  EXPECT_EQ(gis[2].profile, "1g.10gb");
  EXPECT_EQ(gis[3].placement_start, 7u);
  EXPECT_EQ(mig_device_counts(*gpus[0].mig),
            (std::vector<std::pair<std::string, int>>{{"1g.10gb", 2}, {"2g.20gb", 1}, {"3g.40gb", 1}}));
}

TEST(MigInventory, MixedNodeHasAWholeGpuBesideAMigOne) {
  std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology("h100-mixed-node.json"));
  ASSERT_EQ(gpus.size(), 2u);
  ASSERT_TRUE(gpus[0].mig && gpus[1].mig);
  EXPECT_TRUE(gpus[0].mig->current);
  EXPECT_EQ(gpus[0].mig->gpu_instances.size(), 7u);
  EXPECT_FALSE(gpus[1].mig->current);
  EXPECT_TRUE(gpus[1].mig->gpu_instances.empty());
  EXPECT_TRUE(mig_mode_findings(gpus).empty());
}

TEST(MigInventory, ComputeInstanceSmallerThanItsGpuInstanceIsNamedWithItsSlices) {
  EXPECT_EQ(mig_profile_from_nvml_name("MIG 1g.10gb"), "1g.10gb");
  EXPECT_EQ(mig_compute_profile("3g.40gb", 1, 3), "1c.3g.40gb");
  EXPECT_EQ(mig_compute_profile("3g.40gb", 3, 3), "3g.40gb");
}

RunRecord record_with(std::vector<GpuInfo> gpus) {
  RunRecord r = read_record(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json");
  // The fixture's two GPUs keep their identity (UUID, bus); their product, memory and MIG state come
  // from the topology, since a slice's profile must fit its GPU (core/record/mig_identity.hpp).
  for (std::size_t i = 0; i < r.gpus.size() && i < gpus.size(); ++i) {
    r.gpus[i].name = gpus[i].name;
    r.gpus[i].memory_bytes = gpus[i].memory_bytes;
    r.gpus[i].mig = gpus[i].mig;
  }
  r.hardware_class = derive_hardware_class(r.gpus);
  return r;
}

TEST(MigRecord, WriterAndReaderAgreeOnEveryField) {
  RunRecord r = record_with(gpus_from_fake_nvml(topology("h100-mixed-profiles.json")));
  RunRecord back = record_from_json(to_json(r), "mig.json");
  ASSERT_TRUE(back.gpus[0].mig);
  EXPECT_EQ(to_json(back), to_json(r));
  const MigGpuInstance& gi = back.gpus[0].mig->gpu_instances[1];
  EXPECT_EQ(gi.profile, "2g.20gb");
  EXPECT_EQ(gi.placement_start, 4u);
  EXPECT_EQ(gi.memory_bytes, 19968ull << 20);
  EXPECT_EQ(gi.compute_instances.at(0).uuid, r.gpus[0].mig->gpu_instances[1].compute_instances[0].uuid);
}

TEST(MigRecord, ReaderRefusesWhatTheSchemaRefuses) {
  nlohmann::json good = to_json(record_with(gpus_from_fake_nvml(topology("h100-all-1g.json"))));
  auto refused = [&](auto mutate, const std::string& where) {
    nlohmann::json j = good;
    mutate(j["gpus"][0]["mig"]);
    try {
      record_from_json(j, "bad.json");
      ADD_FAILURE() << "accepted: " << where;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(where), std::string::npos) << e.what();
    }
  };
  refused([](nlohmann::json& m) { m["mode_current"] = "on"; }, "$.gpus[0].mig.mode_current");
  refused([](nlohmann::json& m) { m["gpu_instances"][2]["compute_instances"][0]["uuid"] = "GPU-1"; },
          "$.gpus[0].mig.gpu_instances[2].compute_instances[0].uuid");
  refused([](nlohmann::json& m) { m["gpu_instances"][1]["id"] = -1; }, "$.gpus[0].mig.gpu_instances[1].id");
  refused([](nlohmann::json& m) { m["gpu_instances"][0]["placement"]["size"] = 0; }, "placement");
  refused([](nlohmann::json& m) { m["extra"] = 1; }, "$.gpus[0].mig");
}

TEST(MigRecord, RecordWithoutMigReadsAsNotRead) {
  RunRecord r = read_record(std::string(GPUQUAL_TEST_DATA) + "/records/synthetic-healthy.json");
  EXPECT_FALSE(r.gpus[0].mig.has_value());
  EXPECT_FALSE(to_json(r)["gpus"][0].contains("mig"));
}

TEST(MigMode, PendingChangeFailsNamingTheGpu) {
  std::vector<GpuInfo> gpus = gpus_from_fake_nvml(topology("h100-pending.json"));
  ASSERT_TRUE(gpus[0].mig);
  EXPECT_FALSE(gpus[0].mig->current);
  EXPECT_TRUE(gpus[0].mig->pending);
  std::vector<Finding> f = mig_mode_findings(gpus);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].code, kMigChangePending);
  EXPECT_EQ(f[0].severity, Severity::fail);
  EXPECT_EQ(f[0].gpu, 0);
  EXPECT_NE(f[0].detail.find("MIG change not applied: reboot or GPU reset pending"), std::string::npos);

  // The record's own inventory decides it: compare and diff carry it as an inventory row.
  RunRecord r = record_with(gpus);
  bool failed = false;
  for (const FindingRow& row : inventory_finding_rows(r)) {
    if (row.finding.code == kMigChangePending && row.status == Status::fail) failed = true;
  }
  EXPECT_TRUE(failed);
}

}  // namespace
}  // namespace gpuqual
