// The shipped gpuqual binary on this GPU-less machine: `run --suite canary` ends quickly with a
// full record, every GPU check skip/error with a reason, and exit 2; the shipped binary carries
// no test-only check.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "run_fixture.hpp"
#include "suites/check_catalog.hpp"

namespace gpuqual::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class ShippedRun : public RunFixture {};

TEST_F(ShippedRun, CanaryWithoutAGpuIsInconclusiveWithAFullRecord) {
  const auto r = gpuqual(
      {"run", "--suite", "canary", "--output", "r.json", "--suites-dir", GPUQUAL_SOURCE_DIR "/suites"}, {},
      GPUQUAL_BINARY);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_LT(r.seconds, 60);
  EXPECT_THAT(last_line(r.out), StartsWith("gpuqual: INCONCLUSIVE"));
  const RunRecord rec = record();
  EXPECT_TRUE(rec.complete);
  EXPECT_EQ(rec.suite, "canary");
  // stack, 7 GPU checks, mig and gpu_sharing, telemetry, storage, network, dra (optional)
  ASSERT_EQ(suite_checks(rec).size(), 14u);
  if (!rec.gpus.empty()) GTEST_SKIP() << "this machine has GPUs; the GPU-less expectations do not apply";
  for (const auto& c : rec.checks) {
    // Nothing can pass without a GPU; whatever could not run says why.
    EXPECT_TRUE(c.status == Status::skip || c.status == Status::error || c.status == Status::fail)
        << c.name << " " << to_string(c.status);
    EXPECT_FALSE(c.reason.empty()) << c.name;
  }
  // Without the DRA component's files the optional dra check reads nothing: a skip, never a pass.
  for (const auto& c : rec.checks) {
    if (c.name == "dra") EXPECT_EQ(c.status, Status::skip) << c.reason;
  }
}

// Each check reads its parameters strictly: a parameter name in a shipped suite that the check
// does not know would make that check error on every node. Checks read parameters before they
// look for a GPU, so this shows on a GPU-less machine too.
TEST_F(ShippedRun, ShippedSuitesParametersAreAcceptedByTheirChecks) {
  for (const char* suite : {"smoke", "canary", "standard", "burnin"}) {
    std::vector<std::string> args{
        "run",        "--suite", suite,      "--suites-dir", GPUQUAL_SOURCE_DIR "/suites",
        "--baseline", "none",    "--output", "r.json",       "--quiet"};
    if (std::string(suite) == "burnin") args.insert(args.end(), {"--duration", "2s"});
    const auto r = gpuqual(args, {}, GPUQUAL_BINARY);
    EXPECT_NE(r.exit_code, 3) << suite << ": " << r.err;
    const RunRecord rec = record();
    for (const auto& c : rec.checks) {
      for (const char* sign : {"bad parameters", "unknown field", "params:"}) {
        EXPECT_THAT(c.reason, ::testing::Not(HasSubstr(sign))) << suite << ": " << c.name;
      }
    }
  }
}

TEST_F(ShippedRun, ShippedBinaryHasNoTestChecks) {
  const auto r = gpuqual({"list", "--suites-dir", GPUQUAL_SOURCE_DIR "/suites"}, {}, GPUQUAL_BINARY);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("test_")));
  EXPECT_THAT(r.out, ::testing::Not(HasSubstr("test-only")));
  for (const char* suite : {"smoke", "canary", "standard", "burnin"})
    EXPECT_THAT(r.out, HasSubstr(std::string("\n  ") + suite));
  for (const auto& e : check_catalog())
    EXPECT_THAT(r.out, HasSubstr(std::string("\n  ") + std::string(e.name) + " "));
  // A suite naming a test-only check is a typo to the shipped binary.
  write_suite("s", "  - check: test_pass\n");
  const auto bad = gpuqual({"run", "--suite", path("s.yaml")}, {}, GPUQUAL_BINARY);
  EXPECT_EQ(bad.exit_code, 3);
  EXPECT_THAT(bad.err, HasSubstr("line 3: $.checks[0].check: unknown check \"test_pass\""));
}

}  // namespace
}  // namespace gpuqual::testing
