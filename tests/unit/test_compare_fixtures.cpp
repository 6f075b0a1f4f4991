// compare on the synthetic fixture records: the verdict each one must get.
#include <gtest/gtest.h>

#include "report_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

const MetricRow* row(const Verdict& v, const std::string& metric, int gpu) {
  for (const auto& m : v.metrics) {
    if (m.metric == metric && m.gpu == gpu) return &m;
  }
  return nullptr;
}

}  // namespace

TEST(CompareFixtures, Healthy) {
  const Verdict v = judge_fixture("synthetic-healthy");
  EXPECT_EQ(v.outcome, Outcome::pass) << v.summary;
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(v.metrics.size(),
            9u);  // 4 metrics × 2 GPUs judged + the optional node-scope NCCL one, not measured
  EXPECT_EQ(row(v, "gemm.bf16.tflops", 1)->status, Status::pass);
  ASSERT_EQ(v.findings.size(), 1u);
  EXPECT_EQ(v.findings[0].status, Status::pass);  // 2 corrected errors, within the limit of 1000
  EXPECT_EQ(v.summary, "gpuqual: PASS node-a h200-sxm-141gb: 8 of 8 metrics passed, 1 finding");
}

TEST(CompareFixtures, SlowGpu) {
  const Verdict v = judge_fixture("synthetic-slow-gpu");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
  const MetricRow* slow = row(v, "gemm.bf16.tflops", 1);
  ASSERT_TRUE(slow);
  EXPECT_EQ(slow->status, Status::fail);
  EXPECT_NEAR(*slow->delta_pct, (716.0 - 771) / 771 * 100, 1e-9);
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
  EXPECT_EQ(v.per_gpu.at(1), Status::fail);
  EXPECT_EQ(v.summary,
            "gpuqual: FAIL node-a h200-sxm-141gb: 1 of 8 metrics failed (gemm.bf16.tflops gpu 1 -7.1% < "
            "-5.0%), 1 finding");
}

TEST(CompareFixtures, UncorrectedEcc) {
  const Verdict v = judge_fixture("synthetic-ecc-uncorrected");
  EXPECT_EQ(v.outcome, Outcome::fail);
  EXPECT_EQ(v.exit_code, 1);
  ASSERT_EQ(v.findings.size(), 2u);
  EXPECT_EQ(v.findings[1].finding.code, "ecc.uncorrected_volatile");
  EXPECT_EQ(v.findings[1].status, Status::fail);
  EXPECT_EQ(v.per_gpu.at(0), Status::pass);
  EXPECT_EQ(v.per_gpu.at(1), Status::fail);
  EXPECT_NE(v.summary.find("1 of 2 findings failed (ecc.uncorrected_volatile gpu 1)"), std::string::npos)
      << v.summary;
}

TEST(CompareFixtures, MissingMetric) {
  const Verdict v = judge_fixture("synthetic-missing-metric");
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  const MetricRow* missing = row(v, "hbm.triad.gbps", 1);
  ASSERT_TRUE(missing);
  EXPECT_EQ(missing->status, Status::error);
  EXPECT_EQ(missing->check, "hbm");
  EXPECT_EQ(missing->reason, "required metric missing from the record");
}

TEST(CompareFixtures, ErroredCheck) {
  const Verdict v = judge_fixture("synthetic-errored-check");
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  for (int gpu : {0, 1}) {
    const MetricRow* m = row(v, "pcie.h2d.gbps", gpu);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->status, Status::error);
    EXPECT_NE(m->reason.find("check pcie error: check process timed out"), std::string::npos) << m->reason;
  }
  EXPECT_EQ(v.per_gpu.at(0), Status::error);
}

TEST(CompareFixtures, UnknownClass) {
  const Verdict v = judge_fixture("synthetic-unknown-class");
  EXPECT_EQ(v.outcome, Outcome::inconclusive);
  EXPECT_EQ(v.exit_code, 2);
  EXPECT_EQ(v.reasons.at(0), "no baseline for class unknown");
  EXPECT_EQ(v.summary, "gpuqual: INCONCLUSIVE node-x unknown: no baseline, 1 finding");
}

TEST(CompareFixtures, WarnAndStrict) {
  const Verdict v = judge_fixture("synthetic-warn");
  EXPECT_EQ(v.outcome, Outcome::warn);
  EXPECT_EQ(v.exit_code, 0);
  EXPECT_EQ(row(v, "pcie.d2h.gbps", 0)->status, Status::warn);
  const Verdict strict = judge_fixture("synthetic-warn", true);
  EXPECT_EQ(strict.outcome, Outcome::fail);
  EXPECT_EQ(strict.exit_code, 1);
}
