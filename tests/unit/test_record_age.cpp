// Whether a record still speaks for its node (core/verdict/record_age.hpp): --max-age, staleness against
// the Node object, and the commands that apply them (compare, diff, gate, plan).
#include "core/verdict/record_age.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_helpers.hpp"
#include "core/base/input_error.hpp"
#include "core/base/utc_time.hpp"
#include "core/baseline/baseline.hpp"
#include "core/judge/compare.hpp"
#include "core/judge/gate.hpp"
#include "core/record/record_io.hpp"
#include "runner/commands/plan_inputs.hpp"
#include "test_diff_fixtures.hpp"

using namespace gpuqual;
using namespace gpuqual::testing;

namespace {

constexpr std::int64_t kDay = 86400 * 1000;

std::int64_t at(const char* rfc3339) { return *parse_rfc3339_ms(rfc3339); }

const char* kNodeJson = R"({
  "apiVersion": "v1", "kind": "Node",
  "metadata": {"name": "node-a", "labels": {"nvidia.com/cuda.driver-version.full": "570.133.20"}},
  "status": {"nodeInfo": {"bootID": "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813", "kubeletVersion": "v1.31.4",
                          "kernelVersion": "6.1.0"}}
})";

RunRecord current_record() {
  RunRecord r = make_record(2);
  r.node.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  r.node.stack = make_stack(2);  // kubelet v1.31.4; make_record: kernel 6.1.0, driver 570.133.20
  return r;
}

}  // namespace

TEST(RecordAge, MaxAgeMeasuresFromTheEndOfTheRun) {
  const RunRecord r = make_record();  // ended 2026-11-30T12:03:00Z
  const std::int64_t ended = at("2026-11-30T12:03:00Z");
  EXPECT_FALSE(age_problem(r, 7 * 86400, ended + 7 * kDay));
  const auto old = age_problem(r, 7 * 86400, ended + 31 * kDay);
  ASSERT_TRUE(old);
  EXPECT_EQ(*old, "last qualified 31 d ago (2026-11-30T12:03:00Z), more than --max-age 7 d allows");
  // Without an end, the start; without either, the age cannot be judged.
  RunRecord open = r;
  open.ended_at = "";
  EXPECT_TRUE(age_problem(open, 7 * 86400, at("2026-11-30T12:00:00Z") + 7 * kDay + 1000));
  EXPECT_FALSE(age_problem(open, 7 * 86400, at("2026-11-30T12:00:00Z") + 7 * kDay - 1000));
  open.started_at = "yesterday";
  ASSERT_TRUE(age_problem(open, 7 * 86400, ended));
  EXPECT_NE(age_problem(open, 7 * 86400, ended)->find("its age cannot be judged"), std::string::npos);
  // Dated in the future beyond clock skew: the clock is off, its age unknown.
  ASSERT_TRUE(age_problem(r, 7 * 86400, ended - kDay));
  EXPECT_NE(age_problem(r, 7 * 86400, ended - kDay)->find("in the future"), std::string::npos);
  EXPECT_FALSE(age_problem(r, 7 * 86400, ended - 60 * 1000));
}

TEST(RecordAge, FormatAge) {
  EXPECT_EQ(format_age(31 * 86400.0), "31 d");
  EXPECT_EQ(format_age(5 * 3600.0), "5 h");
  EXPECT_EQ(format_age(36 * 3600.0), "36 h");
  EXPECT_EQ(format_age(600), "10 min");
  EXPECT_EQ(format_age(40), "40 s");
}

TEST(RecordAge, NowComesFromGpuqualNowWhenSet) {
  ::setenv("GPUQUAL_NOW", "2026-12-31T00:00:00Z", 1);
  EXPECT_EQ(now_ms(), at("2026-12-31T00:00:00Z"));
  ::setenv("GPUQUAL_NOW", "tomorrow", 1);
  EXPECT_THROW(now_ms(), InputError);
  ::unsetenv("GPUQUAL_NOW");
  EXPECT_GT(now_ms(), at("2026-01-01T00:00:00Z"));
}

TEST(RecordAge, NodeFileReadsANodeOrANodeList) {
  const CurrentNodes one = parse_current_nodes(kNodeJson, "node.json");
  ASSERT_EQ(one.size(), 1u);
  const CurrentNode& n = one.at("node-a");
  EXPECT_EQ(n.boot_id, "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813");
  EXPECT_EQ(n.kubelet_version, "v1.31.4");
  EXPECT_EQ(n.kernel_version, "6.1.0");
  EXPECT_EQ(n.driver_version, "570.133.20");
  const std::string list = std::string(R"({"kind": "NodeList", "items": [)") + kNodeJson +
                           R"(, {"metadata": {"name": "node-b"}, "status": {}}]})";
  const CurrentNodes two = parse_current_nodes(list, "nodes.json");
  EXPECT_EQ(two.size(), 2u);
  EXPECT_EQ(two.at("node-b").boot_id, "");
  // kubectl's own list kind.
  EXPECT_EQ(
      parse_current_nodes(std::string(R"({"kind": "List", "items": [)") + kNodeJson + "]}", "nodes.json")
          .size(),
      1u);
  EXPECT_THROW(parse_current_nodes(R"({"kind": "Pod", "metadata": {"name": "x"}})", "pod.json"), InputError);
  EXPECT_THROW(parse_current_nodes(R"({"kind": "Node", "metadata": {}})", "n.json"), InputError);
  EXPECT_THROW(parse_current_nodes("{", "n.json"), InputError);
}

TEST(RecordAge, DriverFromTheGfdLabels) {
  EXPECT_EQ(driver_from_labels({{"nvidia.com/cuda.driver-version.full", "550.90.07"}}), "550.90.07");
  EXPECT_EQ(driver_from_labels({{"nvidia.com/cuda.driver-version.major", "550"},
                                {"nvidia.com/cuda.driver-version.minor", "90"},
                                {"nvidia.com/cuda.driver-version.revision", "07"}}),
            "550.90.07");
  EXPECT_EQ(driver_from_labels({{"nvidia.com/cuda.driver.major", "525"},
                                {"nvidia.com/cuda.driver.minor", "85"},
                                {"nvidia.com/cuda.driver.rev", "12"}}),
            "525.85.12");
  EXPECT_EQ(driver_from_labels({}), "");
}

TEST(RecordAge, StaleAgainstTheNodeAsItIsNow) {
  const CurrentNode node = parse_current_nodes(kNodeJson, "node.json").at("node-a");
  RunRecord r = current_record();
  EXPECT_TRUE(stale_reasons(r, node).empty());
  RunRecord rebooted = r;
  rebooted.node.boot_id = "0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6";
  ASSERT_EQ(stale_reasons(rebooted, node).size(), 1u);
  EXPECT_EQ(stale_reasons(rebooted, node).front(),
            "taken before the node's current boot (boot 0b8e4f2c, the node's is 6f1c9e0a)");
  RunRecord no_boot = r;
  no_boot.node.boot_id = "";
  EXPECT_EQ(stale_reasons(no_boot, node).size(), 1u);
  RunRecord kubelet = r;
  kubelet.node.stack->k8s_kubelet_version = StackFact::read("v1.30.2");
  ASSERT_EQ(stale_reasons(kubelet, node).size(), 1u);
  EXPECT_EQ(stale_reasons(kubelet, node).front(), "taken under kubelet v1.30.2; the node runs v1.31.4 now");
  RunRecord unread = r;
  unread.node.stack.reset();  // the record cannot show which kubelet it ran under
  EXPECT_EQ(stale_reasons(unread, node).size(), 1u);
  RunRecord kernel = r;
  kernel.node.kernel = "6.1.0-old";
  EXPECT_EQ(stale_reasons(kernel, node).size(), 1u);
  RunRecord driver = r;
  driver.node.driver_version = "550.90.07";
  ASSERT_EQ(stale_reasons(driver, node).size(), 1u);
  EXPECT_EQ(stale_reasons(driver, node).front(),
            "taken under driver 550.90.07; the node runs 570.133.20 now");
  // What the Node does not say is not held against the record.
  EXPECT_TRUE(stale_reasons(driver, CurrentNode{"node-a", "", "", "", ""}).empty());
}

TEST(RecordAge, WithholdingTurnsAPassInconclusiveAndKeepsAFail) {
  Verdict pass;
  pass.outcome = Outcome::pass;
  pass.exit_code = 0;
  pass.summary = "gpuqual: PASS node-a h200-sxm-141gb: 42 of 42 metrics passed, 0 findings";
  withhold_qualification(pass,
                         {"last qualified 31 d ago (2026-11-30T12:03:00Z), more than --max-age 7 d allows"});
  EXPECT_EQ(pass.outcome, Outcome::inconclusive);
  EXPECT_EQ(pass.exit_code, 2);
  EXPECT_EQ(pass.reasons.front(),
            "last qualified 31 d ago (2026-11-30T12:03:00Z), more than --max-age 7 d allows");
  EXPECT_EQ(pass.summary,
            "gpuqual: INCONCLUSIVE node-a h200-sxm-141gb: last qualified 31 d ago (2026-11-30T12:03:00Z), "
            "more than --max-age "
            "7 d allows; the record alone: pass, 42 of 42 metrics passed, 0 findings");
  Verdict fail;
  fail.outcome = Outcome::fail;
  fail.exit_code = 1;
  withhold_qualification(fail, {"old"});
  EXPECT_EQ(fail.outcome, Outcome::fail);
  EXPECT_EQ(fail.exit_code, 1);
  Verdict untouched = pass;
  withhold_qualification(untouched, {});
  EXPECT_EQ(untouched.summary, pass.summary);
}

TEST(RecordAge, GateLeavesAnOldRecordsNodeInconclusive) {
  Jitter jitter{std::mt19937_64(41)};
  const Baseline b = counted(class_baseline());
  GateOptions o;
  o.freshness.max_age_s = 7 * 86400;
  o.freshness.now_ms = at("2026-12-31T12:00:00Z");
  GatePool pool(o);
  for (int i = 0; i < 3; ++i) {
    RunRecord r = flat_node_record(jitter, "node-" + std::to_string(i));
    if (i != 1) r.ended_at = r.started_at = "2026-12-30T12:00:00Z";
    pool.add(summarize_node(r, &b, o, "r" + std::to_string(i) + ".json", static_cast<std::size_t>(i)), &b);
  }
  const Verdict v = pool.finish();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  ASSERT_EQ(v.nodes.size(), 3u);
  EXPECT_EQ(v.nodes.front().hostname, "node-1");  // the one that did not qualify first
  EXPECT_EQ(v.nodes.front().outcome, Outcome::inconclusive);
  ASSERT_FALSE(v.nodes.front().reasons.empty());
  EXPECT_EQ(v.nodes.front().reasons.front().rfind("last qualified 31 d ago", 0), 0u)
      << v.nodes.front().reasons.front();
}

TEST(RecordAge, GateWithANodeFileWithholdsStaleRecords) {
  Jitter jitter{std::mt19937_64(42)};
  const Baseline b = counted(class_baseline());
  GateOptions o;
  auto nodes = std::make_shared<CurrentNodes>();
  (*nodes)["node-0"] = CurrentNode{"node-0", "boot-0", "", "", ""};
  (*nodes)["node-1"] = CurrentNode{"node-1", "boot-1-now", "", "", ""};
  o.freshness.nodes = nodes;
  GatePool pool(o);
  for (int i = 0; i < 3; ++i) {
    RunRecord r = flat_node_record(jitter, "node-" + std::to_string(i));
    r.node.boot_id = "boot-" + std::to_string(i);
    pool.add(summarize_node(r, &b, o, "r" + std::to_string(i) + ".json", static_cast<std::size_t>(i)), &b);
  }
  const Verdict v = pool.finish();
  EXPECT_EQ(v.outcome, Outcome::inconclusive) << v.summary;
  std::map<std::string, Outcome> by;
  for (const auto& n : v.nodes) by[n.hostname] = n.outcome;
  EXPECT_EQ(by["node-0"], Outcome::pass);
  EXPECT_EQ(by["node-1"], Outcome::inconclusive);  // rebooted since its record
  EXPECT_EQ(by["node-2"], Outcome::inconclusive);  // not in the node file
}

namespace {

class FreshnessCli : public ScratchDirTest {
 protected:
  FreshnessCli() : ScratchDirTest("freshness-cli") {}
  CliRun run(const std::string& args, const std::string& now = "2026-12-31T12:00:00Z") {
    return run_cli(args, scratch_, "GPUQUAL_NOW=" + now);
  }
  std::string write_baseline() {
    const std::string p = (scratch_ / "h200-sxm-141gb.yaml").string();
    Baseline b = counted(class_baseline());
    b.provenance.source = "hand-written";
    b.provenance.created = "2026-11-01";
    std::ofstream(p) << baseline_to_yaml(b);
    return p;
  }
  std::string write(const std::string& name, const RunRecord& r) {
    const std::string p = (scratch_ / name).string();
    write_record(p, r);
    return p;
  }
};

}  // namespace

TEST_F(FreshnessCli, CompareDiffGateAndPlanTakeMaxAge) {
  Jitter jitter{std::mt19937_64(43)};
  const std::string baseline = write_baseline();
  std::vector<std::string> records;
  for (int i = 0; i < 3; ++i) {
    records.push_back(
        write("node-" + std::to_string(i) + ".json", flat_node_record(jitter, "node-" + std::to_string(i))));
  }
  const std::string rec = shell_quote(records[0]);
  const std::string base = " --baseline " + shell_quote(baseline);
  EXPECT_EQ(run("compare " + rec + base).code, 0);
  const CliRun old = run("compare " + rec + base + " --max-age 7d");
  EXPECT_EQ(old.code, 2) << old.out << old.err;
  EXPECT_NE(old.last_line().find("last qualified 31 d ago"), std::string::npos) << old.last_line();
  EXPECT_EQ(run("compare " + rec + base + " --max-age 7d", "2026-12-01T12:00:00Z").code, 0);
  EXPECT_EQ(run("compare " + rec + base + " --max-age soon").code, 3);
  EXPECT_EQ(run("compare " + rec + base + " --max-age 7d", "garbage").code, 3);
  // diff judges the after-record's age.
  RunRecord after = flat_node_record(jitter, "node-0");
  after.run_id = "run-after";
  after.started_at = "2026-11-30T13:00:00Z";
  after.ended_at = "2026-11-30T13:03:00Z";
  const std::string a = shell_quote(write("after.json", after));
  EXPECT_EQ(run("diff " + rec + " " + a + base).code, 0);
  EXPECT_EQ(run("diff " + rec + " " + a + base + " --max-age 7d").code, 2);
  // gate: every node too old.
  const std::string pool = records[0] + "' '" + records[1] + "' '" + records[2];
  EXPECT_EQ(run("gate '" + pool + "'" + base).code, 0);
  const CliRun g = run("gate '" + pool + "'" + base + " --max-age 7d");
  EXPECT_EQ(g.code, 2) << g.out;
  EXPECT_EQ(run("gate '" + pool + "'" + base + " --consecutive 2").code, 2);
  // The same file twice: exit 3.
  EXPECT_EQ(run("gate '" + pool + "' " + rec + base).code, 3);
}

TEST_F(FreshnessCli, CompareWithANodeFileRefusesARecordFromAnEarlierBoot) {
  Jitter jitter{std::mt19937_64(44)};
  RunRecord r = flat_node_record(jitter, "node-a");
  r.node.boot_id = "0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6";
  r.node.stack = make_stack(8);
  for (auto& f : r.node.stack->gpu_firmware) f.uuid = r.gpus[static_cast<std::size_t>(f.gpu)].uuid;
  const std::string rec = shell_quote(write("node-a.json", r));
  const std::string baseline = write_baseline();
  const std::string node = (scratch_ / "node.json").string();
  { std::ofstream(node) << kNodeJson; }
  const std::string base = " --baseline " + shell_quote(baseline);
  EXPECT_EQ(run("compare " + rec + base).code, 0);
  const CliRun stale = run("compare " + rec + base + " --node-file " + shell_quote(node));
  EXPECT_EQ(stale.code, 2) << stale.out;
  EXPECT_NE(stale.out.find("stale: taken before the node's current boot"), std::string::npos) << stale.out;
  r.node.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  write("node-a.json", r);
  EXPECT_EQ(run("compare " + rec + base + " --node-file " + shell_quote(node)).code, 0);
}

TEST_F(FreshnessCli, PlanVerdictsFromRecordsHonourMaxAgeConsecutiveAndTheNodes) {
  Jitter jitter{std::mt19937_64(45)};
  write_baseline();
  RunRecord r = flat_node_record(jitter, "node-a");
  r.node.boot_id = "6f1c9e0a-2b7d-4c38-9a51-d0e4f7b2c813";
  const std::string rec = write("node-a.json", r);
  const std::string dir = scratch_.string();
  EXPECT_EQ(read_verdicts({rec}, dir).at("node-a"), Outcome::pass);
  GateOptions old;
  old.freshness.max_age_s = 7 * 86400;
  old.freshness.now_ms = at("2026-12-31T12:00:00Z");
  EXPECT_EQ(read_verdicts({rec}, dir, old).at("node-a"), Outcome::inconclusive);
  GateOptions twice;
  twice.consecutive = 2;
  EXPECT_EQ(read_verdicts({rec}, dir, twice).at("node-a"), Outcome::inconclusive);
  // The Nodes as plan reads them: rebooted since the record.
  GateOptions rebooted;
  auto nodes = std::make_shared<CurrentNodes>();
  (*nodes)["node-a"] = CurrentNode{"node-a", "0b8e4f2c-9d17-4a6e-8c35-71f2a9d0e4b6", "", "", ""};
  rebooted.freshness.nodes = nodes;
  EXPECT_EQ(read_verdicts({rec}, dir, rebooted).at("node-a"), Outcome::inconclusive);
  (*nodes)["node-a"].boot_id = r.node.boot_id;
  EXPECT_EQ(read_verdicts({rec}, dir, rebooted).at("node-a"), Outcome::pass);
  // A verdict file holds neither its records' time nor their history: under --max-age it does
  // not qualify the node; a failure still counts.
  const CliRun compared = run("compare " + shell_quote(rec) + " --baseline " +
                              shell_quote(dir + "/h200-sxm-141gb.yaml") + " --format json");
  ASSERT_EQ(compared.code, 0) << compared.err;
  const std::string verdict = (scratch_ / "verdict.json").string();
  std::ofstream(verdict) << compared.out.substr(0, compared.out.rfind("}\n") + 2);  // less the summary line
  EXPECT_EQ(read_verdicts({verdict}, dir).at("node-a"), Outcome::pass);
  EXPECT_EQ(read_verdicts({verdict}, dir, old).at("node-a"), Outcome::inconclusive);
  EXPECT_EQ(read_verdicts({verdict}, dir, twice).at("node-a"), Outcome::inconclusive);
}
