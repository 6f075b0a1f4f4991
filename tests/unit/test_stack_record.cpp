// The `stack` check's summary in the record (node.stack.stack_check): the writer writes what the
// simdjson reader reads back, a record without it still reads, a bad one is refused naming the
// path; `diff` lists what changed (the spec regenerated, the runtime config changed), and a stack
// that failed `stack` on a node fails its record in compare, diff and the matrix.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>

#include "core/base/input_error.hpp"
#include "core/fleet/matrix.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/diff.hpp"
#include "core/judge/diff_stack.hpp"
#include "core/record/record_json.hpp"
#include "core/record/record_reader.hpp"
#include "record_builders.hpp"
#include "stack_trees.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

RunRecord with_stack_check(StackCheckSummary c) {
  RunRecord r = make_record(1);
  r.node.stack = make_stack(1);
  r.node.stack->stack_check = std::move(c);
  return r;
}

StackCheckSummary coherent() {
  return StackCheckSummary{
      .status = "pass",
      .findings = {},
      .reboot_pending = false,
      .cdi = "/etc/cdi/nvidia.yaml nvidia.com/gpu driver 570.133.20 5 devices",
      .runtime = "containerd handler=/usr/bin/nvidia-container-runtime cdi systemd; mode cdi"};
}

RunRecord round_trip(const RunRecord& r) {
  StreamingRecordReader reader;
  return reader.parse(to_json(r).dump(), "r.json");
}

TEST(StackRecord, TheSummaryReadsBackAsWritten) {
  StackCheckSummary c = coherent();
  c.status = "warn";
  c.findings = {"stack.reboot_pending", "stack.daemon_reload_risk"};
  c.reboot_pending = true;
  const RunRecord back = round_trip(with_stack_check(c));
  ASSERT_TRUE(back.node.stack && back.node.stack->stack_check);
  EXPECT_EQ(*back.node.stack->stack_check, c);
}

TEST(StackRecord, ARecordWithoutTheSummaryStillReads) {
  RunRecord r = make_record(1);
  r.node.stack = make_stack(1);
  const RunRecord back = round_trip(r);
  ASSERT_TRUE(back.node.stack);
  EXPECT_FALSE(back.node.stack->stack_check.has_value());
}

TEST(StackRecord, ABadSummaryIsRefusedNamingItsPath) {
  nlohmann::json j = to_json(with_stack_check(coherent()));
  j["node"]["stack"]["stack_check"]["status"] = "broken";
  StreamingRecordReader reader;
  try {
    reader.parse(j.dump(), "r.json");
    FAIL() << "accepted a status that is not one";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("$.node.stack.stack_check.status"), std::string::npos) << e.what();
  }
  j["node"]["stack"]["stack_check"]["status"] = "pass";
  j["node"]["stack"]["stack_check"]["extra"] = 1;
  EXPECT_THROW(reader.parse(j.dump(), "r.json"), InputError);
}

TEST(StackRecord, DiffShowsTheSpecRegeneratedAndTheRuntimeConfigChanged) {
  const RunRecord before = with_stack_check(coherent());
  StackCheckSummary c = coherent();
  c.cdi = "/etc/cdi/nvidia.yaml nvidia.com/gpu driver 575.57.08 5 devices";
  c.runtime = "containerd handler=/usr/bin/nvidia-container-runtime cdi systemd; mode legacy";
  const RunRecord after = with_stack_check(c);
  const auto lines = stack_changes(before, after, match_gpus(before.gpus, after.gpus));
  auto has = [&](const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != l.npos; });
  };
  EXPECT_TRUE(
      has("stack_check.cdi: /etc/cdi/nvidia.yaml nvidia.com/gpu driver 570.133.20 5 devices → "
          "/etc/cdi/nvidia.yaml nvidia.com/gpu driver 575.57.08 5 devices"))
      << ::testing::PrintToString(lines);
  EXPECT_TRUE(has("stack_check.runtime:")) << ::testing::PrintToString(lines);
  EXPECT_FALSE(has("stack_check.status")) << ::testing::PrintToString(lines);
}

// A record whose own inventory says the stack rules failed fails in compare, whether or not its
// suite ran the `stack` check (core/verdict/inventory_findings.hpp), and so wherever compare's
// judgement goes: the matrix counts the run failed, and diff no longer lists
// `stack_check.status: pass → fail` under a PASS.
TEST(StackRecord, AStackThatFailedStackFailsTheRecordInCompareAndDiff) {
  StackCheckSummary c = coherent();
  c.status = "fail";
  c.findings = {"stack.cdi_spec_stale"};
  const RunRecord failed = with_stack_check(c);
  const Verdict v = compare_record(failed, nullptr, CompareOptions{});
  EXPECT_EQ(v.outcome, Outcome::fail) << v.summary;
  const auto finding = std::find_if(v.findings.begin(), v.findings.end(), [](const FindingRow& f) {
    return f.finding.code == "stack.check_failed";
  });
  ASSERT_NE(finding, v.findings.end());
  EXPECT_EQ(finding->status, Status::fail);
  EXPECT_NE(finding->reason.find("stack.cdi_spec_stale"), std::string::npos) << finding->reason;
  EXPECT_EQ(observe_record(failed, v.outcome).outcome, Outcome::fail);

  const Verdict healthy = compare_record(with_stack_check(coherent()), nullptr, CompareOptions{});
  EXPECT_TRUE(std::none_of(healthy.findings.begin(), healthy.findings.end(),
                           [](const FindingRow& f) { return f.finding.code == "stack.check_failed"; }));

  RunRecord before = with_stack_check(coherent());
  before.run_id = "run-before";
  const Verdict d = diff_records(before, failed, DiffOptions{});
  EXPECT_EQ(d.outcome, Outcome::fail) << d.summary;
}

class StackInventoryTree : public StackTree {};

// What the inventory writes is what the rules judged on the tree.
TEST_F(StackInventoryTree, TheSummaryOfABrokenTreeNamesItsCodes) {
  compose({"engines/containerd2", "overlays/cdi-stale", "overlays/reboot-pending"});
  const HostStack h = read();
  const StackCheckSummary s = stack_check_summary(h, judge_stack(h, StackRuleOptions{}));
  EXPECT_EQ(s.status, "fail");
  EXPECT_TRUE(s.reboot_pending);
  EXPECT_NE(std::find(s.findings.begin(), s.findings.end(), "stack.cdi_spec_stale"), s.findings.end());
  EXPECT_NE(s.cdi.find("driver 550.127.05"), std::string::npos) << s.cdi;
  EXPECT_NE(s.runtime.find("mode cdi"), std::string::npos) << s.runtime;
}

}  // namespace
