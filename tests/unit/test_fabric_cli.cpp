// `gpuqual run --suite S --only fabric` end to end with the shipped binary: on this machine (no
// HCA) it is not applicable; over a recorded tree (suite parameter `root`) it passes or fails
// with the findings in the record, and `gpuqual list` shows the check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>

#include "run_fixture.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;

class FabricCli : public RunFixture {
 protected:
  std::string fabric_suite(const std::string& tree) {
    return write_suite("f",
                       "  - check: compat\n  - check: fabric\n    params:\n      window_s: 0\n      root: " +
                           std::string(GPUQUAL_TEST_DATA) + "/fabric/" + tree + "\n");
  }
};

TEST_F(FabricCli, OnlyFabricOfTheShippedStandardSuite) {
  const auto r = gpuqual({"run", "--suite", "standard", "--suites-dir", GPUQUAL_SOURCE_DIR "/suites",
                          "--only", "fabric", "--baseline", "none", "--output", "r.json", "--quiet"},
                         {}, GPUQUAL_BINARY);
  EXPECT_NE(r.exit_code, 3) << r.err;
  const RunRecord rec = record();
  ASSERT_EQ(suite_checks(rec).size(), 1u);
  const CheckResult& c = check(rec, "fabric");
  if (std::filesystem::is_directory("/sys/class/infiniband")) GTEST_SKIP() << "this machine has RDMA devices";
  EXPECT_EQ(c.status, Status::skip) << c.reason;
  EXPECT_EQ(c.reason_code, "no_hca");
}

TEST_F(FabricCli, OverARecordedHealthyTreeItPasses) {
  const auto r = gpuqual({"run", "--suite", fabric_suite("h100-ndr"), "--only", "fabric", "--baseline",
                          "none", "--output", "r.json", "--quiet"},
                         {}, GPUQUAL_BINARY);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;  // --baseline none: nothing judged, nothing failed
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "fabric");
  EXPECT_EQ(c.status, Status::pass) << c.reason;
  EXPECT_EQ(c.metrics.size(), 3u);
  EXPECT_EQ(c.attributes.at("gpudirect"), "nvidia_peermem");
}

TEST_F(FabricCli, OverARecordedDegradedTreeItFails) {
  const auto r = gpuqual({"run", "--suite", fabric_suite("a100-hdr-degraded"), "--only", "fabric",
                          "--baseline", "none", "--output", "r.json"},
                         {}, GPUQUAL_BINARY);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("fabric"));
  const RunRecord rec = record();
  const CheckResult& c = check(rec, "fabric");
  EXPECT_EQ(c.status, Status::fail);
  std::set<std::string> codes;
  for (const auto& f : c.findings) codes.insert(f.code);
  EXPECT_TRUE(codes.count("fabric.rate_mismatch") && codes.count("fabric.port_down")) << c.reason;
}

TEST_F(FabricCli, ListShowsIt) {
  const auto r = gpuqual({"list", "--suites-dir", GPUQUAL_SOURCE_DIR "/suites"}, {}, GPUQUAL_BINARY);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("\n  fabric "));
}

}  // namespace
}  // namespace gpuqual::testing
