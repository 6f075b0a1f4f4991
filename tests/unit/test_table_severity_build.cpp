// Severities at judging time in `baseline build`: a record whose finding the shipped tables rate `fail` is
// left out, whatever severity the record wrote (docs/health.md, "Severities at judging time").
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "core/fleet/baseline_build.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

TEST(TableSeverityBuild, ARecordWithAnXid79WrittenAsWarnIsLeftOut) {
  Jitter jitter{std::mt19937_64(7)};
  BaselineBuildOptions o;
  o.created = "2026-11-30";
  BaselineBuilder builder(o);
  for (int i = 0; i < 4; ++i) {
    RunRecord r = with_health_and_pcie(flat_node_record(jitter, fmt::format("node-{}", i)), jitter);
    r.started_at = fmt::format("2026-11-2{}T00:00:00Z", i + 1);
    if (i == 0) {
      CheckResult xid = check("xid", Status::warn, "1 Xid event(s)");
      xid.findings.push_back(Finding{"xid.79", Severity::warn, 0, "GPU has fallen off the bus", "", 1.0});
      r.checks.push_back(xid);
    }
    builder.add(r, fmt::format("node-{}.json", i));
  }
  const BaselineBuildResult res = builder.finish();
  ASSERT_EQ(res.excluded.size(), 1u);
  EXPECT_EQ(res.excluded[0].path, "node-0.json");
  EXPECT_NE(res.excluded[0].reason.find("finding xid.79 on gpu 0"), std::string::npos)
      << res.excluded[0].reason;
}
