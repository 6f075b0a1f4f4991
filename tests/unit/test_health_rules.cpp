// The health rules over NVML snapshots (tests/data/health/*.json) with the shipped severity
// tables (baselines/health-findings.yaml, baselines/xid-severity.yaml).
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include <yaml-cpp/yaml.h>

#include "core/base/input_error.hpp"
#include "core/rules/health_rules.hpp"
#include "core/rules/health_severity.hpp"
#include "core/rules/health_snapshot_json.hpp"
#include "tests/support/shipped_severity.hpp"

using namespace gpuqual;

namespace {

const SeverityTable& shipped() { return gpuqual::testing::shipped_severity_table(); }

HealthSnapshot fixture(const std::string& name) {
  return load_health_snapshot(std::string(GPUQUAL_TEST_DATA) + "/health/" + name + ".json");
}

const Finding* find(const HealthEvaluation& ev, const std::string& code,
                    std::optional<int> gpu = std::nullopt) {
  for (const auto& f : ev.findings) {
    if (f.code == code && (!gpu || f.gpu == gpu)) return &f;
  }
  return nullptr;
}

HealthEvaluation judge(const std::string& name, HealthPolicy policy = {}) {
  return evaluate_health(fixture(name), nullptr, policy, shipped());
}

}  // namespace

TEST(HealthRules, HealthyNodePassesWithOnlyInfoFindings) {
  HealthPolicy p;
  p.expect_gpus = 2;
  auto ev = judge("healthy", p);
  EXPECT_EQ(ev.status, Status::pass) << ev.reason;
  EXPECT_EQ(ev.reason, "2 GPU(s) healthy");
  for (const auto& f : ev.findings) EXPECT_EQ(f.severity, Severity::info) << f.code << ": " << f.detail;
  // The retired-pages reading H200s do not give is recorded, not judged.
  ASSERT_NE(find(ev, "nvml.readings_unavailable", 0), nullptr);
  ASSERT_EQ(ev.per_gpu.size(), 2u);
  EXPECT_EQ(ev.per_gpu[1].status, Status::pass);
}

TEST(HealthRules, PendingRemapFailsWithResetAction) {
  auto ev = judge("pending-remap");
  EXPECT_EQ(ev.status, Status::fail);
  const Finding* f = find(ev, "remap.pending", 1);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::fail);
  EXPECT_NE(f->action.find("reset"), std::string::npos) << f->action;
  EXPECT_NE(ev.reason.find("remap.pending (GPU 1)"), std::string::npos) << ev.reason;
  EXPECT_EQ(ev.per_gpu[0].status, Status::pass);
  EXPECT_EQ(ev.per_gpu[1].status, Status::fail);
  // The lifetime uncorrected count that caused the remap is a fact, not a second failure.
  ASSERT_NE(find(ev, "ecc.uncorrected_aggregate", 1), nullptr);
  EXPECT_EQ(find(ev, "ecc.uncorrected_aggregate", 1)->severity, Severity::info);
}

TEST(HealthRules, UncorrectedVolatileEccFailsWithCountAndLocation) {
  auto ev = judge("uncorrected-ecc");
  EXPECT_EQ(ev.status, Status::fail);
  const Finding* f = find(ev, "ecc.uncorrected_volatile", 0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, 2);
  EXPECT_NE(f->detail.find("DRAM 2"), std::string::npos) << f->detail;
  EXPECT_NE(f->action.find("drain"), std::string::npos);
  ASSERT_NE(find(ev, "ecc.corrected_volatile", 0), nullptr);
}

TEST(HealthRules, LinkDowngradedUnderLoadFailsButIdleIsInfo) {
  auto ev = judge("link-downgraded");
  EXPECT_EQ(ev.status, Status::fail);
  const Finding* f = find(ev, "pcie.link_downgraded", 1);
  ASSERT_NE(f, nullptr);
  EXPECT_NE(f->detail.find("Gen4 x8 of max Gen5 x16"), std::string::npos) << f->detail;
  ASSERT_NE(find(ev, "pcie.replays", 1), nullptr);
  EXPECT_EQ(find(ev, "pcie.replays", 1)->value, 37);

  auto idle = judge("link-idle");
  EXPECT_EQ(idle.status, Status::pass) << idle.reason;
  ASSERT_NE(find(idle, "pcie.link_below_max_idle", 1), nullptr);
  EXPECT_EQ(find(idle, "pcie.link_downgraded"), nullptr);
}

TEST(HealthRules, Xid79FailsOncePerGpuWithCountAndCompanionIsInfo) {
  auto ev = judge("xid-79");
  EXPECT_EQ(ev.status, Status::fail);
  const Finding* f = find(ev, "xid.79", 1);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::fail);
  EXPECT_EQ(f->value, 2);  // two events, one finding
  EXPECT_NE(f->detail.find("ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS"), std::string::npos) << f->detail;
  EXPECT_NE(f->action.find("reboot"), std::string::npos);
  const Finding* companion = find(ev, "xid.45", 1);
  ASSERT_NE(companion, nullptr);
  EXPECT_EQ(companion->severity, Severity::info);
  EXPECT_EQ(std::count_if(ev.findings.begin(), ev.findings.end(),
                          [](const Finding& x) { return x.code == "xid.79"; }),
            1);
}

TEST(HealthRules, NvmlMissingSkipsWithTheReason) {
  auto ev = judge("nvml-missing");
  EXPECT_EQ(ev.status, Status::skip);
  EXPECT_NE(ev.reason.find("NVML unavailable: libnvidia-ml.so.1 not loadable"), std::string::npos)
      << ev.reason;
  EXPECT_TRUE(ev.findings.empty());
}

TEST(HealthRules, ExpectedGpuCountMismatchFails) {
  HealthPolicy p;
  p.expect_gpus = 8;
  auto ev = judge("healthy", p);
  EXPECT_EQ(ev.status, Status::fail);
  const Finding* f = find(ev, "gpu.count_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_FALSE(f->gpu.has_value());
  EXPECT_EQ(f->detail, "NVML sees 2 GPU(s), 8 expected");
}

TEST(HealthRules, ThermalThrottlePowerCapAndNvlinkDown) {
  auto ev = judge("thermal-and-nvlink");
  EXPECT_EQ(ev.status, Status::fail);  // a down NVLink fails; the rest warn
  EXPECT_EQ(find(ev, "nvlink.link_inactive", 0)->severity, Severity::fail);
  EXPECT_NE(find(ev, "nvlink.link_inactive", 0)->detail.find("link(s) 3 down of 18"), std::string::npos);
  EXPECT_EQ(find(ev, "nvlink.recovery_errors", 0)->value, 2);
  EXPECT_EQ(find(ev, "throttle.hw_thermal_slowdown", 0)->value, 6.0 / 20);
  EXPECT_EQ(find(ev, "temperature.near_slowdown", 0)->severity, Severity::warn);
  EXPECT_EQ(find(ev, "power.limit_below_default", 0)->value, 500);
  EXPECT_EQ(find(ev, "temperature.at_slowdown"), nullptr);
}

TEST(HealthRules, EccDisabledAndPreAmperePageRetirement) {
  auto ev = judge("ecc-off-and-retirement");
  EXPECT_EQ(ev.status, Status::fail);
  EXPECT_NE(find(ev, "ecc.disabled", 0), nullptr);
  EXPECT_NE(find(ev, "ecc.mode_change_pending", 0), nullptr);
  EXPECT_EQ(find(ev, "retired_pages.pending", 1)->severity, Severity::fail);
  EXPECT_EQ(find(ev, "retired_pages.dbe", 1)->value, 1);
  HealthPolicy no_ecc;
  no_ecc.expect_ecc = false;
  EXPECT_EQ(find(judge("ecc-off-and-retirement", no_ecc), "ecc.disabled"), nullptr);
}

TEST(HealthRules, CountersThatGrewDuringTheRun) {
  HealthSnapshot before = fixture("healthy");
  HealthSnapshot after = fixture("uncorrected-ecc");
  auto ev = evaluate_health(after, &before, {}, shipped());
  const Finding* f = find(ev, "ecc.uncorrected_grew", 0);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->value, 2);
  EXPECT_NE(f->detail.find("grew from 0 to 2"), std::string::npos);
  EXPECT_EQ(find(ev, "ecc.corrected_grew", 0)->value, 14);
  // A counter that went down was reset in between: no growth the other way round.
  auto back = evaluate_health(before, &after, {}, shipped());
  EXPECT_EQ(find(back, "ecc.uncorrected_grew"), nullptr);
  // Another GPU in the same slot (new UUID) is never compared with the old one.
  HealthSnapshot swapped = after;
  swapped.gpus[0].uuid = "GPU-00000000-0000-0000-0000-000000000000";
  EXPECT_EQ(find(evaluate_health(swapped, &before, {}, shipped()), "ecc.uncorrected_grew"), nullptr);
}

TEST(XidRules, SeveritiesFollowDesignAndTheCatalog) {
  const auto& t = shipped();
  for (int code : {48, 64, 74, 79, 95, 119, 120, 140})
    EXPECT_EQ(t.xid(code).severity, Severity::fail) << code;
  for (int code : {63, 92}) EXPECT_EQ(t.xid(code).severity, Severity::warn) << code;
  for (int code : {13, 31, 43, 45}) EXPECT_EQ(t.xid(code).severity, Severity::info) << code;
  EXPECT_EQ(t.xid(99999).severity, Severity::warn);  // unknown codes
  EXPECT_FALSE(t.xid(79).source.empty());
}

TEST(XidRules, ApplicationXidDuringOwnKernelIsEscalated) {
  std::vector<XidEvent> events{{13, 0, "GPU-a", "2026-11-30T12:00:00Z", ""}};
  EXPECT_EQ(xid_findings(events, shipped()).at(0).severity, Severity::info);
  events[0].during_check = "gemm";
  auto f = xid_findings(events, shipped());
  EXPECT_EQ(f.at(0).severity, Severity::fail);
  EXPECT_NE(f.at(0).detail.find("during gpuqual check gemm"), std::string::npos);
}

// Every severity the fixture sets is one the shipped tables do not give, so each assertion on a
// severity below fails when the overrides are ignored (a fixture that repeats the shipped table,
// as Xid 109: fail once did, checks nothing). Read from the file, so a later table change that
// catches up with an override is caught here too.
TEST(SeverityTables, OverrideFixtureChangesWhatTheShippedTablesGive) {
  const YAML::Node doc = YAML::LoadFile(std::string(GPUQUAL_TEST_DATA) + "/health/fleet-overrides.yaml");
  int overridden = 0;
  for (const auto& f : doc["findings"]) {
    const auto code = f.first.as<std::string>();
    EXPECT_NE(to_string(shipped().finding(code).severity), f.second["severity"].as<std::string>()) << code;
    ++overridden;
  }
  for (const auto& x : doc["xids"]) {
    const int code = x.first.as<int>();
    EXPECT_NE(to_string(shipped().xid(code).severity), x.second["severity"].as<std::string>()) << code;
    ++overridden;
  }
  EXPECT_EQ(overridden, 4);
}

TEST(SeverityTables, OperatorOverridesReplaceOnlyTheGivenFields) {
  SeverityTable t = shipped();
  load_severity_overrides(t, std::string(GPUQUAL_TEST_DATA) + "/health/fleet-overrides.yaml");
  EXPECT_EQ(t.finding("pcie.link_downgraded").severity, Severity::warn);
  EXPECT_NE(t.finding("pcie.link_downgraded").action.find("fleet A"), std::string::npos);
  EXPECT_EQ(t.finding("pcie.link_downgraded").meaning, shipped().finding("pcie.link_downgraded").meaning);
  // Xid 109 lowered (shipped: fail), only its severity: the rest is the shipped row's.
  EXPECT_EQ(t.xid(109).severity, Severity::warn);
  EXPECT_EQ(t.xid(109).mnemonic, "ROBUST_CHANNEL_CTXSW_TIMEOUT_ERROR");
  EXPECT_EQ(t.xid(109).action, shipped().xid(109).action);
  // Xid 92 raised (shipped: warn) with the fleet's action; its meaning kept.
  EXPECT_EQ(t.xid(92).severity, Severity::fail);
  EXPECT_NE(t.xid(92).action.find("fleet A"), std::string::npos);
  EXPECT_EQ(t.xid(92).meaning, shipped().xid(92).meaning);
  EXPECT_EQ(t.xid(200).severity, Severity::fail);  // a new code (shipped: unknown, warn)
  EXPECT_EQ(t.origins.size(), 3u);
  // The findings made with the table carry the overridden severities.
  const std::vector<XidEvent> events{{109, 0, "GPU-a", "2026-11-30T12:00:00Z", ""},
                                     {92, 1, "GPU-b", "2026-11-30T12:00:01Z", ""}};
  for (const Finding& f : xid_findings(events, t))
    EXPECT_EQ(f.severity, f.code == "xid.109" ? Severity::warn : Severity::fail) << f.code;
  EXPECT_EQ(xid_findings(events, t).size(), 2u);
  EXPECT_EQ(evaluate_health(fixture("link-downgraded"), nullptr, {}, t).status, Status::warn);
  EXPECT_EQ(judge("link-downgraded").status, Status::fail);  // the shipped table alone
}

TEST(SeverityTables, BadOverridesAreInputErrors) {
  SeverityTable t = shipped();
  const std::string typo = std::string(GPUQUAL_TEST_DATA) + "/health/bad/override-typo.yaml";
  try {
    load_severity_overrides(t, typo);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), typo);
    EXPECT_NE(e.problem().find("pcie.link_downgradd"), std::string::npos);
  }
  EXPECT_THROW(
      apply_severity_overrides(t, "schema: gpuqual.health-overrides/v1\nxids:\n  300: {action: x}\n", "o"),
      InputError);  // a new code needs a severity
  EXPECT_THROW(apply_severity_overrides(
                   t, "schema: gpuqual.health-overrides/v1\nxids:\n  79: {severity: fatal}\n", "o"),
               InputError);
  EXPECT_THROW(apply_severity_overrides(t, "schema: wrong\n", "o"), InputError);
  EXPECT_THROW(apply_severity_overrides(t, "schema: [unclosed\n", "o"), InputError);
}

TEST(SeverityTables, ShippedTableMustCoverEveryCode) {
  std::vector<std::string> codes = health_finding_codes();
  codes.push_back("made.up_code");
  EXPECT_THROW(load_severity_tables(std::string(GPUQUAL_SOURCE_DIR) + "/baselines", codes), InputError);
}

TEST(HealthSnapshotJson, RoundTripsAndRejectsBadFixtures) {
  HealthSnapshot s = fixture("thermal-and-nvlink");
  HealthSnapshot back = health_snapshot_from_json(to_json(s), "roundtrip");
  EXPECT_EQ(to_json(back), to_json(s));
  EXPECT_THROW(load_health_snapshot(std::string(GPUQUAL_TEST_DATA) + "/health/bad/negative-counter.json"),
               InputError);
  try {
    load_health_snapshot(std::string(GPUQUAL_TEST_DATA) + "/health/bad/typo-field.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("remap_pendng"), std::string::npos) << e.what();
  }
}

TEST(HealthRules, GpuCountUsesEveryGpuNvmlListsNotOnlyTheSelection) {
  // CUDA_VISIBLE_DEVICES=0 on an 8-GPU node: one GPU judged, eight counted.
  HealthSnapshot s = fixture("healthy");
  s.gpus.resize(1);
  s.nvml_gpu_count = 8;
  HealthPolicy p;
  p.expect_gpus = 8;
  EXPECT_EQ(find(evaluate_health(s, nullptr, p, shipped()), "gpu.count_mismatch"), nullptr);
  s.nvml_gpu_count = 7;  // one fell off the bus
  const HealthEvaluation ev = evaluate_health(s, nullptr, p, shipped());
  const Finding* f = find(ev, "gpu.count_mismatch");
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->detail, "NVML sees 7 GPU(s), 8 expected");
  EXPECT_EQ(health_snapshot_from_json(to_json(s), "x").nvml_gpu_count, 7);
}
