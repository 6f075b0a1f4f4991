// NVLink judged against the links the GPU is expected to have (docs/health.md): expect_nvlinks when
// given; otherwise every link NVML answers for, except a PCIe part or a GPU alone in its
// partition with every link down (info, not fail). Built snapshots, the shipped severity table.
#include <gtest/gtest.h>

#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "tests/support/shipped_severity.hpp"

using namespace gpuqual;

namespace {

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

// One GPU with `links` NVLink links of which the first `active` are up.
HealthSnapshot with_links(int links, int active) {
  HealthSnapshot s;
  s.nvml_available = true;
  GpuHealthReading g;
  g.index = 0;
  g.name = "NVIDIA H200";
  g.uuid = "GPU-0";
  // The core readings present, so only NVLink decides (core/rules/health_core_fields.hpp).
  g.compute_capability = "9.0";
  g.ecc_enabled = true;
  g.ecc_volatile_uncorrected = 0;
  g.ecc_aggregate_uncorrected = 0;
  g.remapped_rows_uncorrectable = 0;
  g.remap_pending = false;
  g.pcie_gen = 5;
  g.pcie_width = 16;
  for (int l = 0; l < links; ++l) g.nvlinks.push_back(NvLinkReading{l, l < active, 0, 0, 0, 0, {}, {}});
  s.gpus.push_back(g);
  return s;
}

std::vector<std::string> nvlink_codes(const HealthEvaluation& ev) {
  std::vector<std::string> out;
  for (const auto& f : ev.findings) {
    if (f.code.rfind("nvlink.", 0) == 0) out.push_back(f.code + ":" + std::string(to_string(f.severity)));
  }
  return out;
}

HealthEvaluation judge(const HealthSnapshot& s, const HealthPolicy& p) {
  return evaluate_health(s, nullptr, p, shipped());
}

}  // namespace

TEST(HealthNvlink, ALinkDownOnAnNvswitchNodeFails) {
  HealthPolicy p;
  const HealthEvaluation ev = judge(with_links(18, 17), p);
  EXPECT_EQ(nvlink_codes(ev), std::vector<std::string>{"nvlink.link_inactive:fail"});
  EXPECT_EQ(ev.status, Status::fail);
  // Every link down on a multi-GPU SXM node is a fabric that did not come up (Fabric Manager).
  EXPECT_EQ(nvlink_codes(judge(with_links(18, 0), p)), std::vector<std::string>{"nvlink.link_inactive:fail"});
}

TEST(HealthNvlink, EveryLinkDownOnASingleGpuPartitionIsInfo) {
  HealthPolicy p;
  p.single_gpu_partition = true;
  const HealthEvaluation ev = judge(with_links(18, 0), p);
  EXPECT_EQ(nvlink_codes(ev), std::vector<std::string>{"nvlink.linkless_partition:info"});
  EXPECT_EQ(ev.status, Status::pass);
  // Some links up and some down is a broken link, partition or not.
  EXPECT_EQ(nvlink_codes(judge(with_links(18, 12), p)),
            std::vector<std::string>{"nvlink.link_inactive:fail"});
}

TEST(HealthNvlink, APciePartHasNoFabricToExpect) {
  HealthPolicy p;
  p.no_nvlink_fabric = {0};
  EXPECT_EQ(nvlink_codes(judge(with_links(4, 0), p)),
            std::vector<std::string>{"nvlink.linkless_partition:info"});
  EXPECT_EQ(judge(with_links(4, 0), p).status, Status::pass);
}

TEST(HealthNvlink, ExpectedLinksAreJudgedExactly) {
  HealthPolicy p;
  p.expect_nvlinks = 18;
  p.single_gpu_partition = true;  // an expectation overrides the partition guess
  const HealthEvaluation ev = judge(with_links(18, 0), p);
  ASSERT_EQ(nvlink_codes(ev), std::vector<std::string>{"nvlink.link_inactive:fail"});
  EXPECT_NE(ev.findings.front().detail.find("0 of 18 expected"), std::string::npos)
      << ev.findings.front().detail;
  EXPECT_TRUE(nvlink_codes(judge(with_links(18, 18), p)).empty());
  p.expect_nvlinks = 12;  // a class wired with 12 of the 18 links NVML lists
  EXPECT_TRUE(nvlink_codes(judge(with_links(18, 12), p)).empty());
  p.expect_nvlinks = 0;
  EXPECT_TRUE(nvlink_codes(judge(with_links(18, 0), p)).empty());
}
